-- API tokens (DESIGN.md section 6): only the SHA-256 of a token is stored.
-- A role is one of admin > referee > display.  Revoked tokens stay for the
-- audit trail.  Every change notifies channel arbiter_tokens, so running
-- daemons reload their token cache at once.

CREATE TABLE api_tokens (
    id          bigserial PRIMARY KEY,
    name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 64),
    role        text NOT NULL CHECK (role IN ('admin', 'referee', 'display')),
    token_hash  text NOT NULL UNIQUE CHECK (token_hash ~ '^[0-9a-f]{64}$'),
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE UNIQUE INDEX api_tokens_live_name ON api_tokens (name) WHERE revoked_at IS NULL;

CREATE FUNCTION api_tokens_notify() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('arbiter_tokens', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER api_tokens_changed
    AFTER INSERT OR UPDATE OR DELETE ON api_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION api_tokens_notify();
