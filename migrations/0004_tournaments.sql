-- Tournaments (issue 5): players, tournaments with stages, the matches a
-- stage makes, their results and corrections, and ratings.
--
-- Results are the truth; standings (stages.standings) and ratings
-- (ratings, rating_history) are caches the daemon recomputes from them.
-- A stage's pairings are made by the pure tournament/ modules from the
-- stored results; stage_matches keeps what was made, so that a later
-- computation never re-pairs a round already announced.

CREATE TABLE players (
    id            bigserial PRIMARY KEY,
    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    club          text CHECK (club IS NULL OR length(club) BETWEEN 1 AND 64),
    external_id   text UNIQUE CHECK (external_id IS NULL OR length(external_id) BETWEEN 1 AND 64),
    active        boolean NOT NULL DEFAULT true,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE tournaments (
    id            bigserial PRIMARY KEY,
    name          text NOT NULL CHECK (length(name) BETWEEN 1 AND 128),
    game          text NOT NULL,
    seed          bigint NOT NULL,
    -- the config of the runtime matches the tournament calls (checked by
    -- the game when the tournament is created)
    match_config  jsonb NOT NULL DEFAULT '{}',
    -- venue tables its matches are called to, in turn (tables.id)
    tables        bigint[] NOT NULL DEFAULT '{}',
    state         text NOT NULL DEFAULT 'draft'
                  CHECK (state IN ('draft', 'registration', 'check_in', 'running', 'finished')),
    created_by    text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE registrations (
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    player_id     bigint NOT NULL REFERENCES players (id),
    seed          integer CHECK (seed >= 1),        -- the organiser's; NULL: by rating
    checked_in    boolean NOT NULL DEFAULT false,
    status        text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'dropped', 'disqualified')),
    late          boolean NOT NULL DEFAULT false,   -- registered after the tournament started
    registered_at timestamptz NOT NULL DEFAULT now(),
    changed_by    text NOT NULL,
    PRIMARY KEY (tournament_id, player_id)
);

CREATE TABLE stages (
    id            bigserial PRIMARY KEY,
    tournament_id bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    number        integer NOT NULL CHECK (number >= 1),
    format        text NOT NULL,
    config        jsonb NOT NULL,
    -- how many of the previous stage's standings go on (a top cut);
    -- NULL: everyone still in (stage 1: every checked-in player)
    advance       integer CHECK (advance >= 2),
    state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'running', 'finished')),
    -- player ids in seeding order, fixed when the stage starts; a late
    -- entry is appended
    entrants      bigint[],
    standings     jsonb,                            -- cache, recomputed from results
    UNIQUE (tournament_id, number)
);

CREATE TABLE stage_matches (
    id            bigserial PRIMARY KEY,
    stage_id      bigint NOT NULL REFERENCES stages (id) ON DELETE CASCADE,
    round         integer NOT NULL CHECK (round >= 1),
    table_no      integer NOT NULL CHECK (table_no >= 1),
    bracket_id    integer,                          -- bracket formats: the graph's match
    participants  bigint[] NOT NULL,                -- player ids in seat order
    table_id      bigint REFERENCES tables (id),    -- the venue table it is called to
    match_id      bigint UNIQUE REFERENCES matches (id),   -- the runtime match, once called
    state         text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'called', 'done')),
    -- [{player, rank, score, forfeit}] in seat order
    result        jsonb CHECK (result IS NULL OR jsonb_typeof(result) = 'array'),
    recorded_at   timestamptz,
    recorded_by   text,
    UNIQUE (stage_id, round, table_no)
);

CREATE TABLE stage_byes (
    stage_id      bigint NOT NULL REFERENCES stages (id) ON DELETE CASCADE,
    round         integer NOT NULL,
    player_id     bigint NOT NULL REFERENCES players (id),
    PRIMARY KEY (stage_id, round, player_id)
);

CREATE TABLE corrections (
    id             bigserial PRIMARY KEY,
    -- NULL once a later correction's reset deleted the match: the row stays
    stage_match_id bigint REFERENCES stage_matches (id) ON DELETE SET NULL,
    tournament_id  bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    before         jsonb,
    after          jsonb NOT NULL,
    reason         text NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
    reset          bigint[] NOT NULL DEFAULT '{}',  -- later stage matches this reset
    who            text NOT NULL,
    at             timestamptz NOT NULL DEFAULT now()
);

-- One row per game and player: OpenSkill (every match) and Glicko-2 (duels).
CREATE TABLE ratings (
    game          text NOT NULL,
    player_id     bigint NOT NULL REFERENCES players (id),
    mu            double precision NOT NULL,
    sigma         double precision NOT NULL,
    games         integer NOT NULL,
    g2_rating     double precision NOT NULL,
    g2_rd         double precision NOT NULL,
    g2_volatility double precision NOT NULL,
    g2_games      integer NOT NULL,
    PRIMARY KEY (game, player_id)
);

CREATE TABLE rating_history (
    game           text NOT NULL,
    player_id      bigint NOT NULL REFERENCES players (id),
    stage_match_id bigint NOT NULL REFERENCES stage_matches (id) ON DELETE CASCADE,
    system         text NOT NULL CHECK (system IN ('openskill', 'glicko2')),
    before         jsonb NOT NULL,
    after          jsonb NOT NULL,
    at             timestamptz NOT NULL,
    PRIMARY KEY (game, system, player_id, stage_match_id)
);

-- A runtime match that finishes hands its placements to the stage match
-- it was called for, in the same transaction as its last input: whether
-- the input came straight from the daemon or from the spool after an
-- outage, the result cannot be lost.  The daemon hears of it by NOTIFY.
-- A runtime match that is aborted gives its stage match back: pending,
-- to be called again or to get its result by hand.
CREATE FUNCTION stage_match_finished() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    sm stage_matches%ROWTYPE;
BEGIN
    IF NEW.state = 'finished' AND OLD.state IS DISTINCT FROM 'finished' AND NEW.result IS NOT NULL THEN
        UPDATE stage_matches s
           SET state = 'done', recorded_at = now(), recorded_by = 'match ' || NEW.id,
               result = (SELECT jsonb_agg(jsonb_build_object(
                                 'player', s.participants[(p ->> 'seat')::int],
                                 'name', (SELECT name FROM players WHERE id = s.participants[(p ->> 'seat')::int]),
                                 'rank', (p ->> 'place')::int, 'score', 0, 'forfeit', false)
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

CREATE TRIGGER matches_finished AFTER UPDATE OF state ON matches
    FOR EACH ROW EXECUTE FUNCTION stage_match_finished();
