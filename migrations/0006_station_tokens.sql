-- A station token speaks for one seat of one table: that seat in every
-- match played at the table (a tablet at the seat, linked once for the
-- night).  A seat token is for a match or for a table, never both.
ALTER TABLE api_tokens
    ADD COLUMN table_id bigint REFERENCES tables (id) ON DELETE CASCADE;
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_seat_scope;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_seat_scope
    CHECK ((role = 'seat') = (seat IS NOT NULL AND (match_id IS NULL) <> (table_id IS NULL)));

-- The live match of a table: its newest unfinished one.
CREATE INDEX matches_live_by_table ON matches (table_id, id)
    WHERE state IN ('ready', 'running', 'paused', 'provisional');
