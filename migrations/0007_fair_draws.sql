-- Fair draws (issue 11; docs/fairness.md): a tournament's secrets, and the
-- identity of every runtime match it called.
--
-- A called match's seed is HMAC-SHA256 of the tournament's secret and the
-- match's identity (tournament, stage match, attempt: each call of a stage
-- match is a new deck); common/seed.h has the exact bytes.  secrets[e] is
-- the secret of epoch e: the API shows its SHA-256 (the commitment) from
-- the start and the secret itself once the tournament is finished.
-- Reopening a finished tournament appends a new secret, since the end
-- revealed the old one: the epochs below the last are all revealed.
--
-- competitive: the daemon drew the secrets (getrandom).  Otherwise they
-- follow from the organiser's seed (SHA-256 of a label, the seed and the
-- epoch), for practice and tests.  A tournament made before this migration
-- had a seed a client may have chosen, and its matches' seeds gave it away
-- (an XOR with a constant): it is not competitive, and its secret is the one
-- its seed gives, as for any non-competitive tournament.  Its matches called
-- already keep their seeds (matches.seed); they are not in match_calls.
ALTER TABLE tournaments
    ADD COLUMN competitive boolean NOT NULL DEFAULT false,
    ADD COLUMN secrets bytea[];
UPDATE tournaments
   SET secrets = ARRAY[sha256(convert_to('arbiter-secret-of-seed-v1', 'UTF8') || int8send(seed) || int4send(1))];
ALTER TABLE tournaments
    ALTER COLUMN competitive DROP DEFAULT,
    ALTER COLUMN secrets SET NOT NULL,
    ADD CONSTRAINT tournaments_secrets_check CHECK (cardinality(secrets) >= 1);

-- One row per call of a stage match: the runtime match it made, and the
-- identity its seed was derived from.  No foreign key to stage_matches: a
-- correction's reset deletes stage matches, and their calls stay on record.
CREATE TABLE match_calls (
    match_id       bigint PRIMARY KEY REFERENCES matches (id) ON DELETE CASCADE,
    tournament_id  bigint NOT NULL REFERENCES tournaments (id) ON DELETE CASCADE,
    stage_match_id bigint NOT NULL,
    attempt        integer NOT NULL CHECK (attempt >= 1),
    epoch          integer NOT NULL CHECK (epoch >= 1),
    called_at      timestamptz NOT NULL DEFAULT now(),
    UNIQUE (stage_match_id, attempt)
);
CREATE INDEX match_calls_tournament ON match_calls (tournament_id, match_id);
