-- Matches (issue 4): one row per match and its append-only input log.
-- seed + config + seats + the log in seq order rebuild the match exactly;
-- state_hash (the engine's hash after the input, 16 hex digits) proves it
-- on replay.  needs_referee is set, with the reason, when a replay does not
-- reproduce what was stored: the daemon then leaves the match to a person.

CREATE TABLE matches (
    id            bigserial PRIMARY KEY,
    game          text NOT NULL,
    table_id      bigint REFERENCES tables (id),
    seed          bigint NOT NULL,
    config        jsonb NOT NULL,
    seats         jsonb NOT NULL CHECK (jsonb_typeof(seats) = 'array'),
    state         text NOT NULL DEFAULT 'ready'
                  CHECK (state IN ('ready', 'running', 'paused', 'finished', 'aborted')),
    created_by    text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    started_at    timestamptz,
    finished_at   timestamptz,
    result        jsonb,
    needs_referee text
);

CREATE INDEX matches_unfinished ON matches (id) WHERE state IN ('ready', 'running', 'paused');

CREATE TABLE match_inputs (
    match_id      bigint NOT NULL REFERENCES matches (id) ON DELETE CASCADE,
    seq           bigint NOT NULL CHECK (seq >= 1),
    recorded_at   timestamptz NOT NULL DEFAULT now(),
    match_time_us bigint NOT NULL,
    seat          integer CHECK (seat BETWEEN 1 AND 8),
    kind          text NOT NULL,
    input         jsonb NOT NULL,
    state_hash    text NOT NULL CHECK (state_hash ~ '^[0-9a-f]{16}$'),
    refusal       text,
    reaction_us   bigint,
    source        text NOT NULL CHECK (source IN ('referee', 'operator', 'timer', 'pad')),
    who           text NOT NULL,
    PRIMARY KEY (match_id, seq)
);
