-- Ratings kept a step at a time, off the loop thread (issue 12;
-- docs/ratings.md, "How the tables are kept").
--
-- A game's ratings are its results applied one at a time in one order, the
-- order key: recorded_at, then id (a correction changes a result, not its
-- place).  The daemon's rating worker (organiser/ratings.h) applies a new
-- result as one step at the end of that order, from the stored ratings of
-- its players; a change to a result already rated makes the tables stale
-- from that result's place on, and the worker recomputes them from there.
--
-- rating_tables: one row per table of ratings the worker keeps.  A game's
-- all-time table (season_from and season_to NULL) is the rows of `ratings`
-- and the two histories; a season's (results recorded on or after
-- season_from and before season_to, UTC days, either end open) is its rows
-- of season_ratings.  through_at, through_id is the order key of the last
-- result the table has taken (NULL: none yet), results how many results up
-- to there it has read (rated or skipped), params the rating parameters it
-- was computed with (a change recomputes it).
CREATE TABLE rating_tables (
    id            bigserial PRIMARY KEY,
    game          text NOT NULL,
    season_from   date,
    season_to     date,
    params        text NOT NULL,
    through_at    timestamptz,
    through_id    bigint,
    results       bigint NOT NULL DEFAULT 0,
    ready         boolean NOT NULL DEFAULT false,   -- computed once; a season is read only then
    created_at    timestamptz NOT NULL DEFAULT now(),
    computed_at   timestamptz,
    CHECK (season_from < season_to),
    CHECK ((through_at IS NULL) = (through_id IS NULL)),
    UNIQUE NULLS NOT DISTINCT (game, season_from, season_to)
);

CREATE TABLE season_ratings (
    table_id      bigint NOT NULL REFERENCES rating_tables (id) ON DELETE CASCADE,
    player_id     bigint NOT NULL REFERENCES players (id),
    mu            double precision NOT NULL,
    sigma         double precision NOT NULL,
    games         integer NOT NULL,
    g2_rating     double precision NOT NULL,
    g2_rd         double precision NOT NULL,
    g2_volatility double precision NOT NULL,
    g2_games      integer NOT NULL,
    PRIMARY KEY (table_id, player_id)
);

-- A player's history in one row per game and system: entry i of every
-- array is one rated result, in the order key's order (stage_match_ids[i],
-- ats[i] its recorded_at), with the rating before and after it.  One row a
-- player rather than one row a step: a recompute of a million results
-- writes five thousand rows, not four million (make bench), and a step
-- appends to its two to four players' rows.  last_at, last_id: the key of
-- the last entry, so that a recompute finds the rows it must cut without
-- reading their arrays.  The arrays are stored uncompressed (EXTERNAL):
-- doubles do not compress, and the step rewrites them.
--
-- The old rating_history was a cache of the same recompute: it goes, and
-- the worker writes these from the results when it first starts.
DROP TABLE rating_history;

CREATE TABLE rating_history_openskill (
    game            text NOT NULL,
    player_id       bigint NOT NULL REFERENCES players (id),
    stage_match_ids bigint[] NOT NULL,
    ats             timestamptz[] NOT NULL,
    mu_before       double precision[] NOT NULL,
    sigma_before    double precision[] NOT NULL,
    mu              double precision[] NOT NULL,
    sigma           double precision[] NOT NULL,
    last_at         timestamptz NOT NULL,
    last_id         bigint NOT NULL,
    PRIMARY KEY (game, player_id)
);
ALTER TABLE rating_history_openskill
    ALTER stage_match_ids SET STORAGE EXTERNAL, ALTER ats SET STORAGE EXTERNAL,
    ALTER mu_before SET STORAGE EXTERNAL, ALTER sigma_before SET STORAGE EXTERNAL,
    ALTER mu SET STORAGE EXTERNAL, ALTER sigma SET STORAGE EXTERNAL;

CREATE TABLE rating_history_glicko2 (
    game              text NOT NULL,
    player_id         bigint NOT NULL REFERENCES players (id),
    stage_match_ids   bigint[] NOT NULL,
    ats               timestamptz[] NOT NULL,
    rating_before     double precision[] NOT NULL,
    rd_before         double precision[] NOT NULL,
    volatility_before double precision[] NOT NULL,
    rating            double precision[] NOT NULL,
    rd                double precision[] NOT NULL,
    volatility        double precision[] NOT NULL,
    last_at           timestamptz NOT NULL,
    last_id           bigint NOT NULL,
    PRIMARY KEY (game, player_id)
);
ALTER TABLE rating_history_glicko2
    ALTER stage_match_ids SET STORAGE EXTERNAL, ALTER ats SET STORAGE EXTERNAL,
    ALTER rating_before SET STORAGE EXTERNAL, ALTER rd_before SET STORAGE EXTERNAL,
    ALTER volatility_before SET STORAGE EXTERNAL, ALTER rating SET STORAGE EXTERNAL,
    ALTER rd SET STORAGE EXTERNAL, ALTER volatility SET STORAGE EXTERNAL;

-- A player's history is read by player.
CREATE INDEX rating_history_openskill_player ON rating_history_openskill (player_id);
CREATE INDEX rating_history_glicko2_player ON rating_history_glicko2 (player_id);

-- The results in the order key's order, for the worker's reads: a step
-- reads what follows a table's key, a recompute reads them all.
CREATE INDEX stage_matches_rating_order ON stage_matches (recorded_at, id) WHERE state = 'done';

-- What a result says to the ratings, as typed arrays in seat order, kept
-- by the database from the JSON result: a million results read as arrays
-- in a third of the time the JSON takes to print (make bench).  An entry
-- that is not what the daemon writes ({player, rank, forfeit}, integers and
-- a boolean) reads as NULL there, and the worker skips that result.
CREATE FUNCTION rating_result_players(r jsonb) RETURNS bigint[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_agg(CASE WHEN jsonb_typeof(e -> 'player') = 'number' AND (e ->> 'player') ~ '^[0-9]{1,18}$'
                          THEN (e ->> 'player')::bigint END ORDER BY o)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r) = 'array' THEN r END) WITH ORDINALITY AS x(e, o)
$$;
CREATE FUNCTION rating_result_ranks(r jsonb) RETURNS integer[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_agg(CASE WHEN jsonb_typeof(e -> 'rank') = 'number' AND (e ->> 'rank') ~ '^[0-9]{1,9}$'
                          THEN (e ->> 'rank')::integer END ORDER BY o)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r) = 'array' THEN r END) WITH ORDINALITY AS x(e, o)
$$;
CREATE FUNCTION rating_result_forfeits(r jsonb) RETURNS boolean[] LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT array_agg(coalesce(e -> 'forfeit' = 'true'::jsonb, false) ORDER BY o)
      FROM jsonb_array_elements(CASE WHEN jsonb_typeof(r) = 'array' THEN r END) WITH ORDINALITY AS x(e, o)
$$;
ALTER TABLE stage_matches
    ADD COLUMN rated_players bigint[] GENERATED ALWAYS AS (rating_result_players(result)) STORED,
    ADD COLUMN rated_ranks integer[] GENERATED ALWAYS AS (rating_result_ranks(result)) STORED,
    ADD COLUMN rated_forfeits boolean[] GENERATED ALWAYS AS (rating_result_forfeits(result)) STORED;

-- A result already rated that changes (a correction), stops being a result
-- or is deleted (a correction's reset) leaves a mark: the game's tables are
-- stale from its place in the order on.  The mark is written in the
-- transaction that made the change, so a daemon that stops before it has
-- recomputed still does it when it starts.  game is NULL when the result's
-- tournament is gone with it: every game is then recomputed; at NULL (a
-- result without its time) means from the start.
CREATE TABLE rating_dirty (
    id             bigserial PRIMARY KEY,
    game           text,
    at             timestamptz,
    stage_match_id bigint NOT NULL
);

-- The worker hears of every new result and every mark on channel
-- arbiter_ratings, payload "<game> <stage match id>".
CREATE FUNCTION stage_match_rating_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    g text;
BEGIN
    IF TG_OP = 'UPDATE' AND NEW.state = 'done' AND OLD.state <> 'done' THEN
        SELECT t.game INTO g FROM stages s JOIN tournaments t ON t.id = s.tournament_id WHERE s.id = NEW.stage_id;
        PERFORM pg_notify('arbiter_ratings', g || ' ' || NEW.id);
        RETURN NULL;
    END IF;
    IF TG_OP = 'UPDATE' AND NEW.state = 'done' AND NEW.result IS NOT DISTINCT FROM OLD.result
       AND NEW.recorded_at IS NOT DISTINCT FROM OLD.recorded_at AND NEW.stage_id = OLD.stage_id THEN
        RETURN NULL;
    END IF;
    SELECT t.game INTO g FROM stages s JOIN tournaments t ON t.id = s.tournament_id WHERE s.id = OLD.stage_id;
    INSERT INTO rating_dirty (game, at, stage_match_id) VALUES (g, OLD.recorded_at, OLD.id);
    PERFORM pg_notify('arbiter_ratings', coalesce(g, '') || ' ' || OLD.id);
    RETURN NULL;
END $$;

CREATE TRIGGER stage_matches_rating_update AFTER UPDATE OF state, result, recorded_at, stage_id ON stage_matches
    FOR EACH ROW WHEN (OLD.state = 'done' OR NEW.state = 'done')
    EXECUTE FUNCTION stage_match_rating_changed();
CREATE TRIGGER stage_matches_rating_delete AFTER DELETE ON stage_matches
    FOR EACH ROW WHEN (OLD.state = 'done')
    EXECUTE FUNCTION stage_match_rating_changed();
