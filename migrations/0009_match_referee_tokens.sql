-- A referee token limited to one match (docs/matches.md, "Match referee
-- tokens"): players who report their own turns on a tablet referee their
-- match and no other.  Such a token is a referee's row with match_id; a
-- match is named only by a seat's or a referee's token, a table only by a
-- seat's (a station's).
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_match_scope
    CHECK (match_id IS NULL OR role IN ('seat', 'referee'));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_table_scope
    CHECK (table_id IS NULL OR role = 'seat');
