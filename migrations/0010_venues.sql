-- Venues (issue 17): several venues' daemons share one database.  Each
-- daemon runs one venue's tables and matches (its lock is keyed by the
-- venue's number); players, tournaments, results and ratings are shared.
-- A club with one venue has the venue 'main', which every row made before
-- this migration belongs to.

CREATE TABLE venues (
    id          text PRIMARY KEY CHECK (id ~ '^[a-z0-9][a-z0-9_-]{0,31}$'),
    -- The key of the venue's daemon lock (pg_try_advisory_lock(class, number)).
    number      integer GENERATED ALWAYS AS IDENTITY UNIQUE,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    created_at  timestamptz NOT NULL DEFAULT now()
);
INSERT INTO venues (id, name) VALUES ('main', 'main');

-- A table stands at one venue; its name is unique there.
ALTER TABLE tables ADD COLUMN venue text NOT NULL DEFAULT 'main' REFERENCES venues (id);
ALTER TABLE tables ALTER COLUMN venue DROP DEFAULT;
ALTER TABLE tables DROP CONSTRAINT tables_name_key;
ALTER TABLE tables ADD CONSTRAINT tables_venue_name_key UNIQUE (venue, name);
ALTER TABLE tables ADD CONSTRAINT tables_id_venue_key UNIQUE (id, venue);

-- A match is run by its venue's daemon; a match at a table is at the
-- table's venue (the foreign key says so whenever table_id is set).
ALTER TABLE matches ADD COLUMN venue text NOT NULL DEFAULT 'main' REFERENCES venues (id);
ALTER TABLE matches ALTER COLUMN venue DROP DEFAULT;
ALTER TABLE matches ADD CONSTRAINT matches_table_venue_fkey
    FOREIGN KEY (table_id, venue) REFERENCES tables (id, venue);
CREATE INDEX matches_venue_unfinished ON matches (venue, id) WHERE state IN ('ready', 'running', 'paused');

-- The events one venue's daemon publishes for the others (a result, a
-- called match, standings, a table's match, a live match's public view).
-- Inserted under a transaction-level advisory lock, so ids commit in id
-- order and a reader that has seen id N has seen every id below it; each
-- insert NOTIFYs arbiter_league with the newest id.  Kept for an hour: a
-- daemon that reconnects catches up from its last id.
CREATE TABLE league_events (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    venue   text NOT NULL REFERENCES venues (id),
    topic   text NOT NULL CHECK (length(topic) BETWEEN 1 AND 64),
    event   text NOT NULL CHECK (length(event) BETWEEN 1 AND 64),
    data    jsonb NOT NULL,
    at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX league_events_topic ON league_events (topic, id);
CREATE INDEX league_events_at ON league_events (at);

-- A finished match's result NOTIFY names the match's venue, so that only
-- the daemon that ran it publishes the result (the others hear it as a
-- league event).  Payload "<stage match id> <venue>"; otherwise as 0005.
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
            PERFORM pg_notify('arbiter_results', sm.id || ' ' || NEW.venue);
        END IF;
    ELSIF NEW.state = 'aborted' AND OLD.state IS DISTINCT FROM 'aborted' THEN
        UPDATE stage_matches SET state = 'pending', match_id = NULL WHERE match_id = NEW.id AND state = 'called';
    END IF;
    RETURN NEW;
END $$;
