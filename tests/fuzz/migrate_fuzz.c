/* libFuzzer target: a migrations directory (store/migrate.c): file names,
 * file contents, and the plan against what a database says it applied.
 *
 * Input: byte 0 says how many entries follow (up to MIGRATE_FUZZ_FILES),
 * each a name (a length byte and that many bytes; '/' and NUL, which no
 * file name holds, become '_') and its contents (a u16 length and that
 * many bytes), written into a fresh directory under $ARBITER_TEST_TMP,
 * else /dev/shm, else /tmp; a name whose first byte is 0x7f is made a
 * directory instead, and a name given twice keeps its first entry.  Then
 * the rows of schema_migrations, three bytes each: which scanned file a
 * row copies, and what it changes of it (version, name, checksum, or
 * nothing).
 *
 * Invariants (store/migrate.h):
 *   - migrate_parse_name accepts exactly NNNN_description.sql with NNNN
 *     0001..9999 and a description of one or more of [a-z0-9_];
 *   - migrate_scan_dir reads every regular *.sql not starting with '.'
 *     and nothing else, and succeeds exactly when all their names parse,
 *     no two share a version and none holds a NUL byte: then the list is
 *     sorted by version, each with its name, its bytes as its SQL and the
 *     SHA-256 of its bytes (libcrypto's, hex here) as its checksum; a
 *     refusal's message names one of those files;
 *   - migrate_plan succeeds exactly when the applied rows are a prefix of
 *     the files (same version, name and checksum), and then the first
 *     pending file is the one after that prefix; a refusal is -ESTALE
 *     exactly when the first row that differs differs in its checksum
 *     alone (the rows in ascending order), else -EINVAL; its message is
 *     not empty.
 *
 * tests/unit/test_fuzz_migrate.c replays tests/fuzz/corpus/migrate/
 * through migrate_fuzz_check().
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "store/migrate.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MIGRATE_FUZZ_FILES      12
#define MIGRATE_FUZZ_ROWS       16
#define MIGRATE_FUZZ_ERR        1024

struct migrate_fuzz_file {
        char name[256];
        const uint8_t *bytes;
        size_t len;
        bool dir;
};

/* NNNN_description.sql, read without migrate.c. */
static bool migrate_fuzz_name_ok(const char *s, int *ret_version) {
        size_t n = strlen(s);

        if (n < 4 + 1 + 1 + 4 || strcmp(s + n - 4, ".sql") != 0 || s[4] != '_')
                return false;
        for (size_t i = 0; i < 4; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        for (size_t i = 5; i < n - 4; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
                        return false;
        *ret_version = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
        return *ret_version >= 1;
}

static void migrate_fuzz_sha256(const uint8_t *p, size_t n, char hex[MIGRATE_CHECKSUM_HEX_LEN + 1]) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned len = 0;

        FUZZ_ASSERT(EVP_Digest(p, n, md, &len, EVP_sha256(), NULL) && len * 2 == MIGRATE_CHECKSUM_HEX_LEN);
        for (unsigned i = 0; i < len; i++)
                snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* ---- the directory ---------------------------------------------------------- */

static char migrate_fuzz_base[PATH_MAX];

static void migrate_fuzz_rmrf(const char *dir) {
        DIR *d = opendir(dir);
        struct dirent *de;
        char p[PATH_MAX + 300];

        if (!d)
                return;
        while ((de = readdir(d))) {
                if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
                        continue;
                snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
                if (unlink(p) < 0)
                        rmdir(p);
        }
        closedir(d);
        rmdir(dir);
}

static void migrate_fuzz_cleanup(void) {
        char dir[PATH_MAX + 16];

        snprintf(dir, sizeof dir, "%s/m", migrate_fuzz_base);
        migrate_fuzz_rmrf(dir);
        rmdir(migrate_fuzz_base);
}

/* A fresh, empty directory for one input. */
static const char *migrate_fuzz_dir(void) {
        static char dir[PATH_MAX + 16];
        const char *bases[] = { getenv("ARBITER_TEST_TMP"), "/dev/shm", "/tmp" };

        if (!migrate_fuzz_base[0]) {
                for (size_t i = 0; i < sizeof bases / sizeof bases[0] && !migrate_fuzz_base[0]; i++) {
                        if (!bases[i])
                                continue;
                        snprintf(migrate_fuzz_base, sizeof migrate_fuzz_base, "%s/migrate-fuzz.XXXXXX", bases[i]);
                        if (!mkdtemp(migrate_fuzz_base))
                                migrate_fuzz_base[0] = '\0';
                }
                FUZZ_ASSERT(migrate_fuzz_base[0]);
                atexit(migrate_fuzz_cleanup);
                snprintf(dir, sizeof dir, "%s/m", migrate_fuzz_base);
        }
        migrate_fuzz_rmrf(dir);
        FUZZ_ASSERT(mkdir(dir, 0700) == 0);
        return dir;
}

/* ---- the plan ----------------------------------------------------------------- */

static bool migrate_fuzz_same(const struct migration *a, const struct migration *b) {
        return a->version == b->version && strcmp(a->name, b->name) == 0 && strcmp(a->checksum, b->checksum) == 0;
}

static void migrate_fuzz_plan(const struct migration_list *files, const uint8_t *rows, size_t n_bytes) {
        struct migration applied_items[MIGRATE_FUZZ_ROWS];
        char names[MIGRATE_FUZZ_ROWS][64];
        struct migration_list applied = { .items = applied_items };
        char err[MIGRATE_FUZZ_ERR] = "";
        size_t first = 99, k, j;
        bool ascending = true;
        int r, expect;

        for (k = 0; k + 3 <= n_bytes && applied.n < MIGRATE_FUZZ_ROWS; k += 3) {
                struct migration *a = &applied_items[applied.n];
                char *name = names[applied.n];
                uint8_t which = rows[k], change = rows[k + 1], what = rows[k + 2];

                if (files->n) {
                        const struct migration *f = &files->items[which % files->n];

                        *a = (struct migration) { .version = f->version, .name = name };
                        snprintf(name, sizeof names[0], "%s", f->name);
                        memcpy(a->checksum, f->checksum, sizeof a->checksum);
                } else {
                        *a = (struct migration) { .version = 1 + which, .name = name };
                        snprintf(name, sizeof names[0], "%04d_x.sql", a->version);
                        memset(a->checksum, '0', MIGRATE_CHECKSUM_HEX_LEN);
                        a->checksum[MIGRATE_CHECKSUM_HEX_LEN] = '\0';
                }
                switch (change & 3) {
                case 1:
                        a->version += (int) what - 128;
                        break;
                case 2:
                        snprintf(name, sizeof names[0], "%04d_renamed_%u.sql", a->version, what);
                        break;
                case 3:
                        a->checksum[what % MIGRATE_CHECKSUM_HEX_LEN] ^= 1;
                        break;
                }
                applied.n++;
        }
        for (j = 1; j < applied.n; j++)
                ascending &= applied.items[j].version > applied.items[j - 1].version;
        /* the first row that is not the file in its place */
        for (j = 0; j < applied.n && j < files->n && migrate_fuzz_same(&applied.items[j], &files->items[j]); j++)
                ;
        if (ascending && j == applied.n)
                expect = 0;
        else if (ascending && j < files->n && applied.items[j].version == files->items[j].version &&
                 strcmp(applied.items[j].name, files->items[j].name) == 0)
                expect = -ESTALE;
        else
                expect = -EINVAL;

        r = migrate_plan(files, &applied, &first, err, sizeof err);
        FUZZ_ASSERT(r == expect);
        if (r == 0)
                FUZZ_ASSERT(first == applied.n);
        else
                FUZZ_ASSERT(err[0] != '\0');
}

/* ---- one input ---------------------------------------------------------------- */

static void migrate_fuzz_check(const uint8_t *data, size_t size) {
        struct migrate_fuzz_file files[MIGRATE_FUZZ_FILES];
        struct migration_list list = { 0 };
        char err[MIGRATE_FUZZ_ERR] = "", path[PATH_MAX + 300];
        const char *dir = migrate_fuzz_dir();
        size_t n = 0, at = 1, expected_n = 0, entries;
        bool expect_ok = true;
        int versions[MIGRATE_FUZZ_FILES], r;     /* -1: not scanned; 0: a bad name */

        if (size < 1)
                return;
        entries = data[0] % (MIGRATE_FUZZ_FILES + 1);
        for (size_t e = 0; e < entries && at < size; e++) {
                bool again = false;
                struct migrate_fuzz_file *f = &files[n];
                size_t name_len = data[at++], len;

                if (name_len > size - at)
                        name_len = size - at;
                f->dir = name_len > 0 && data[at] == 0x7f;
                for (size_t i = 0; i < name_len; i++)
                        f->name[i] = data[at + i] == '/' || data[at + i] == '\0' ? '_' : (char) data[at + i];
                f->name[name_len] = '\0';
                at += name_len;
                len = at + 2 <= size ? (size_t) (data[at] | data[at + 1] << 8) : 0;
                at = at + 2 <= size ? at + 2 : size;
                if (len > size - at)
                        len = size - at;
                f->bytes = data + at;
                f->len = len;
                at += len;
                for (size_t k = 0; k < n; k++)
                        again |= strcmp(files[k].name, f->name) == 0;
                if (again || !f->name[0] || strcmp(f->name, ".") == 0 || strcmp(f->name, "..") == 0)
                        continue;
                snprintf(path, sizeof path, "%s/%s", dir, f->name);
                if (f->dir) {
                        FUZZ_ASSERT(mkdir(path, 0700) == 0);
                } else {
                        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

                        FUZZ_ASSERT(fd >= 0);
                        FUZZ_ASSERT(f->len == 0 || write(fd, f->bytes, f->len) == (ssize_t) f->len);
                        close(fd);
                }
                n++;
        }

        /* what the scan should find */
        for (size_t i = 0; i < n; i++) {
                size_t len = strlen(files[i].name);
                int v;

                FUZZ_ASSERT(migrate_parse_name(files[i].name, &v) ==
                            (migrate_fuzz_name_ok(files[i].name, &v) ? 0 : -EINVAL));
                if (files[i].dir || files[i].name[0] == '.' || len < 4 ||
                    strcmp(files[i].name + len - 4, ".sql") != 0) {
                        versions[i] = -1;
                        continue;
                }
                expected_n++;
                if (!migrate_fuzz_name_ok(files[i].name, &v) || memchr(files[i].bytes, 0, files[i].len))
                        expect_ok = false;
                versions[i] = migrate_fuzz_name_ok(files[i].name, &v) ? v : 0;
                for (size_t k = 0; k < i; k++)
                        if (versions[i] > 0 && versions[k] == versions[i])
                                expect_ok = false;
        }

        r = migrate_scan_dir(dir, &list, err, sizeof err);
        FUZZ_ASSERT((r == 0) == expect_ok);
        if (r < 0) {
                bool named = false;

                FUZZ_ASSERT(r == -EINVAL);
                for (size_t i = 0; i < n; i++)
                        named |= versions[i] != -1 && strstr(err, files[i].name) != NULL;
                FUZZ_ASSERT(named);
        } else {
                FUZZ_ASSERT(list.n == expected_n);
                for (size_t i = 0; i < list.n; i++) {
                        const struct migration *m = &list.items[i];
                        const struct migrate_fuzz_file *f = NULL;
                        char hex[MIGRATE_CHECKSUM_HEX_LEN + 1];

                        FUZZ_ASSERT(i == 0 || m->version > list.items[i - 1].version);
                        for (size_t k = 0; k < n; k++)
                                if (versions[k] >= 0 && strcmp(files[k].name, m->name) == 0)
                                        f = &files[k];
                        FUZZ_ASSERT(f && versions[f - files] == m->version);
                        FUZZ_ASSERT(strlen(m->sql) == f->len && memcmp(m->sql, f->bytes, f->len) == 0);
                        migrate_fuzz_sha256(f->bytes, f->len, hex);
                        FUZZ_ASSERT(strcmp(m->checksum, hex) == 0);
                }
                migrate_fuzz_plan(&list, data + at, size - at);
        }
        migration_list_done(&list);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        migrate_fuzz_check(data, size);
        return 0;
}
