/* store/migrate.h — the migration runner's plan (docs/architecture.md,
 * "Persistence").
 *
 * migrations/NNNN_description.sql: NNNN is the version (exactly four
 * decimal digits, 0001..9999, unique), the description lowercase letters,
 * digits and '_'.  Applied in ascending order, each file in one
 * transaction with its row in schema_migrations(version, name, checksum,
 * applied_at), the whole run under a session advisory lock so two
 * daemons never race.  The checksum is the SHA-256 of the file's bytes,
 * in lowercase hex.
 *
 * This header is the pure part: reading a directory into a sorted list and
 * comparing it with what the database says was applied.  store.c executes
 * the plan.  A plan refuses to go on when
 *   - an applied migration's file changed (checksum differs),
 *   - the database has a version this build has no file for (a newer
 *     arbiterd migrated it), or a name differs for the same version,
 *   - two files share a version, or a file name is malformed.
 *
 * store.c sends each file and its schema_migrations INSERT as one simple
 * query, which PostgreSQL runs as one implicit transaction.  So a migration
 * file must not contain BEGIN/COMMIT/ROLLBACK (a COMMIT would make the part
 * before it permanent without its row), nor statements that refuse to run
 * in a transaction block (CREATE INDEX CONCURRENTLY, VACUUM), nor
 * COPY … FROM STDIN.
 */
#ifndef ARBITER_STORE_MIGRATE_H
#define ARBITER_STORE_MIGRATE_H

#include <stddef.h>

#define MIGRATE_CHECKSUM_HEX_LEN 64

struct migration {
        int version;
        char *name;                                  /* file name, e.g. "0001_init.sql" */
        char checksum[MIGRATE_CHECKSUM_HEX_LEN + 1]; /* sha256 hex */
        char *sql;                                   /* file contents (NULL for applied rows) */
};

struct migration_list {
        struct migration *items;
        size_t n;
};

/* Reads every *.sql in dir, sorted by version. -ENOENT, -EINVAL (with err). */
int migrate_scan_dir(const char *dir, struct migration_list *ret, char *err, size_t errlen);

/* Sorts by version; fails with -EINVAL on duplicates or bad names (err says which). */
int migrate_sort_and_check(struct migration_list *list, char *err, size_t errlen);

/* Parses "NNNN_description.sql" → version; -EINVAL if malformed. */
int migrate_parse_name(const char *name, int *ret_version);

/* Writes the SHA-256 of data in lowercase hex.  Returns 0, or -ENOMEM when
 * libcrypto could not compute it (out is then ""). */
int migrate_checksum(const void *data, size_t len, char out[MIGRATE_CHECKSUM_HEX_LEN + 1]);

/* Compares files (sorted) with applied (rows of schema_migrations, sorted);
 * on success *ret_first_pending is the index in files of the first
 * migration to apply (files->n when nothing is pending).  On a refusal
 * returns -EINVAL (or -ESTALE for a changed checksum) with err set to a
 * message that names the file and says what to do. */
int migrate_plan(const struct migration_list *files, const struct migration_list *applied,
                 size_t *ret_first_pending, char *err, size_t errlen);

void migration_list_done(struct migration_list *list);

#endif
