-- Tables (issue 4): a named set of seats at the venue, each seat bound to
-- a pad and, optionally, a map from the pad's buttons to the game's calls.
-- A pad sits at one seat of one table at most.

CREATE TABLE tables (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL UNIQUE CHECK (length(name) BETWEEN 1 AND 64),
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE table_seats (
    table_id    bigint NOT NULL REFERENCES tables (id) ON DELETE CASCADE,
    seat        integer NOT NULL CHECK (seat BETWEEN 1 AND 8),
    pad_id      text CHECK (pad_id ~ '^[0-9a-f]{16}$'),
    button_map  jsonb CHECK (button_map IS NULL OR jsonb_typeof(button_map) = 'object'),
    PRIMARY KEY (table_id, seat)
);

CREATE UNIQUE INDEX table_seats_pad ON table_seats (pad_id) WHERE pad_id IS NOT NULL;
