-- The engine framework (issue 9): pads with roles at tables, data files and
-- result confirmation for matches, undo in the input log, seat tokens.

-- A table's pads, each with its role: a seat's button pad and slap pad, or
-- the table's own referee keypad (seat NULL).  A pad sits at one table.
CREATE TABLE table_pads (
    table_id    bigint NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat        integer CHECK (seat BETWEEN 1 AND 8),
    pad_id      text NOT NULL UNIQUE CHECK (pad_id ~ '^[0-9a-f]{16}$'),
    role        text NOT NULL CHECK (role IN ('buttons', 'slap', 'keypad'))
);
CREATE INDEX table_pads_table ON table_pads (table_id, seat);

INSERT INTO table_pads (table_id, seat, pad_id, role)
    SELECT table_id, seat, pad_id, 'buttons' FROM table_seats WHERE pad_id IS NOT NULL;
DROP INDEX table_seats_pad;
ALTER TABLE table_seats DROP COLUMN pad_id;

-- A match's custom data files (its catalogue, boards; {} when every file is
-- the game's own), whether its result waits for a referee's confirm, and
-- the table's own pads it took when it was created.  'provisional': the
-- engine has finished, the referee has not confirmed yet.
ALTER TABLE matches
    ADD COLUMN data jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(data) = 'object'),
    ADD COLUMN confirm text NOT NULL DEFAULT 'auto' CHECK (confirm IN ('auto', 'referee')),
    ADD COLUMN confirm_timeout_s integer CHECK (confirm_timeout_s > 0),
    ADD COLUMN table_pads jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(table_pads) = 'array');
ALTER TABLE matches DROP CONSTRAINT matches_state_check;
ALTER TABLE matches ADD CONSTRAINT matches_state_check
    CHECK (state IN ('ready', 'running', 'paused', 'provisional', 'finished', 'aborted'));
DROP INDEX matches_unfinished;
CREATE INDEX matches_unfinished ON matches (id) WHERE state IN ('ready', 'running', 'paused', 'provisional');

-- Seats stored before pads had roles carry one "pad": it becomes their
-- button pad.
UPDATE matches m SET seats = (
    SELECT jsonb_agg((s - 'pad') || jsonb_build_object('pads',
               CASE WHEN s ->> 'pad' IS NULL THEN '[]'::jsonb
                    ELSE jsonb_build_array(jsonb_build_object('pad', s ->> 'pad', 'role', 'buttons')) END)
           ORDER BY (s ->> 'seat')::int)
    FROM jsonb_array_elements(m.seats) s)
WHERE jsonb_array_length(m.seats) > 0;

-- A stage may ask for its matches' results to be confirmed by a referee
-- (the "confirm" of POST /v1/matches; NULL: "auto").
ALTER TABLE stages ADD COLUMN confirm jsonb;

-- An input's reason (a referee's void says why), and which void undid it.
ALTER TABLE match_inputs
    ADD COLUMN reason text,
    ADD COLUMN voided_by bigint;
ALTER TABLE match_inputs DROP CONSTRAINT match_inputs_source_check;
ALTER TABLE match_inputs ADD CONSTRAINT match_inputs_source_check
    CHECK (source IN ('referee', 'operator', 'timer', 'pad', 'seat'));

-- A seat token speaks for one seat of one match (a player's station).
ALTER TABLE api_tokens
    ADD COLUMN match_id bigint REFERENCES matches (id) ON DELETE CASCADE,
    ADD COLUMN seat integer CHECK (seat BETWEEN 1 AND 8);
ALTER TABLE api_tokens DROP CONSTRAINT api_tokens_role_check;
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_role_check
    CHECK (role IN ('admin', 'referee', 'display', 'seat'));
ALTER TABLE api_tokens ADD CONSTRAINT api_tokens_seat_scope
    CHECK ((role = 'seat') = (match_id IS NOT NULL AND seat IS NOT NULL));

-- A finished match hands its placements to its stage match, now with each
-- seat's score (the sum of its terms) as the result's score.
CREATE OR REPLACE FUNCTION stage_match_finished() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sm stage_matches%ROWTYPE;
BEGIN
    IF NEW.state = 'finished' AND OLD.state IS DISTINCT FROM 'finished' AND NEW.result IS NOT NULL THEN
        UPDATE stage_matches s
           SET state = 'done', recorded_at = now(), recorded_by = 'match ' || NEW.id,
               result = (SELECT jsonb_agg(jsonb_build_object(
                                 'player', s.participants[(p ->> 'seat')::int],
                                 'name', (SELECT name FROM players WHERE id = s.participants[(p ->> 'seat')::int]),
                                 'rank', (p ->> 'place')::int,
                                 'score', coalesce((p -> 'score' ->> 'total')::bigint, 0), 'forfeit', false)
                                 ORDER BY (p ->> 'seat')::int)
                           FROM jsonb_array_elements(NEW.result -> 'placements') p)
         WHERE s.match_id = NEW.id AND s.state <> 'done'
        RETURNING * INTO sm;
        IF FOUND THEN
            PERFORM pg_notify('arbiter_results', sm.id::text);
        END IF;
    ELSIF NEW.state = 'aborted' AND OLD.state IS DISTINCT FROM 'aborted' THEN
        UPDATE stage_matches SET state = 'pending', match_id = NULL WHERE match_id = NEW.id AND state = 'called';
    END IF;
    RETURN NEW;
END $$;
