/* store/migrate.c — see migrate.h. */
#include "store/migrate.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <openssl/evp.h>

#include "common/errbuf.h"

/* "NNNN_": four digits and the underscore. */
#define MIGRATE_VERSION_DIGITS 4
#define MIGRATE_SUFFIX ".sql"


static bool ends_with(const char *s, const char *suffix) {
        size_t n = strlen(s), m = strlen(suffix);
        return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The name is the migration's identity in schema_migrations, so it is held
 * to one spelling: exactly four digits (0001..9999), an underscore, a
 * description of lowercase letters, digits and underscores, ".sql".
 * Anything looser (0002-pads.sql, 2_pads.sql, 0002_Pads.sql) would let two
 * spellings of one migration exist. */
int migrate_parse_name(const char *name, int *ret_version) {
        size_t len, desc_len;
        int version = 0;

        if (!name)
                return -EINVAL;
        len = strlen(name);
        if (!ends_with(name, MIGRATE_SUFFIX) || len < MIGRATE_VERSION_DIGITS + 1 + 1 + strlen(MIGRATE_SUFFIX))
                return -EINVAL;
        for (int i = 0; i < MIGRATE_VERSION_DIGITS; i++) {
                if (name[i] < '0' || name[i] > '9')
                        return -EINVAL;
                version = version * 10 + (name[i] - '0');
        }
        if (version == 0 || name[MIGRATE_VERSION_DIGITS] != '_')
                return -EINVAL;

        desc_len = len - MIGRATE_VERSION_DIGITS - 1 - strlen(MIGRATE_SUFFIX);
        for (size_t i = 0; i < desc_len; i++) {
                char c = name[MIGRATE_VERSION_DIGITS + 1 + i];
                if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
                        return -EINVAL;
        }
        if (ret_version)
                *ret_version = version;
        return 0;
}

int migrate_checksum(const void *data, size_t len, char out[MIGRATE_CHECKSUM_HEX_LEN + 1]) {
        static const char hex[] = "0123456789abcdef";
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned md_len = 0;

        out[0] = '\0';
        if (!EVP_Digest(data, len, md, &md_len, EVP_sha256(), NULL) ||
            md_len * 2 != MIGRATE_CHECKSUM_HEX_LEN)
                return -ENOMEM;
        for (unsigned i = 0; i < md_len; i++) {
                out[2 * i] = hex[md[i] >> 4];
                out[2 * i + 1] = hex[md[i] & 0xf];
        }
        out[MIGRATE_CHECKSUM_HEX_LEN] = '\0';
        return 0;
}

static int cmp_migration(const void *a, const void *b) {
        const struct migration *x = a, *y = b;

        if (x->version != y->version)
                return x->version < y->version ? -1 : 1;
        return strcmp(x->name, y->name);
}

/* The version is re-derived from the name rather than trusted, so a list
 * assembled by hand (tests, a future packaging step) is held to the same
 * rules as a scanned directory.  Ties are ordered by name so that the
 * duplicate message is the same on every run. */
int migrate_sort_and_check(struct migration_list *list, char *err, size_t errlen) {
        for (size_t i = 0; i < list->n; i++) {
                struct migration *m = &list->items[i];
                if (migrate_parse_name(m->name, &m->version) < 0) {
                        errbuf_set(err, errlen,
                                "\"%s\" is not a migration file name: expected NNNN_description.sql "
                                "(NNNN from 0001 to 9999; description of lowercase letters, digits and _); "
                                "rename it, or move it out of the migrations directory",
                                m->name ? m->name : "(null)");
                        return -EINVAL;
                }
        }
        if (list->n > 1)
                qsort(list->items, list->n, sizeof list->items[0], cmp_migration);
        for (size_t i = 1; i < list->n; i++)
                if (list->items[i].version == list->items[i - 1].version) {
                        errbuf_set(err, errlen,
                                "migrations %s and %s share version %d: give the one that was not "
                                "released yet the next free number",
                                list->items[i - 1].name, list->items[i].name, list->items[i].version);
                        return -EINVAL;
                }
        return 0;
}

/* Reads the whole file: the checksum covers every byte, and the SQL is sent
 * as one string, so an embedded NUL (which would silently cut the query
 * short) is refused. */
static int read_migration(int dir_fd, const char *dir, const char *name, struct migration *m,
                          char *err, size_t errlen) {
        struct stat st;
        size_t len = 0;
        char *buf;
        int fd, r;

        fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY);
        if (fd < 0) {
                r = -errno;
                errbuf_set(err, errlen, "cannot open migration %s/%s: %s", dir, name, strerror(-r));
                return r;
        }
        if (fstat(fd, &st) < 0) {
                r = -errno;
                close(fd);
                errbuf_set(err, errlen, "cannot stat migration %s/%s: %s", dir, name, strerror(-r));
                return r;
        }
        buf = malloc((size_t) st.st_size + 1);
        if (!buf) {
                close(fd);
                errbuf_set(err, errlen, "out of memory reading migration %s/%s", dir, name);
                return -ENOMEM;
        }
        while (len < (size_t) st.st_size) {
                ssize_t k = read(fd, buf + len, (size_t) st.st_size - len);
                if (k < 0 && errno == EINTR)
                        continue;
                if (k <= 0) {
                        r = k < 0 ? -errno : -EIO;
                        close(fd);
                        free(buf);
                        errbuf_set(err, errlen, "cannot read migration %s/%s: %s", dir, name,
                                k < 0 ? strerror(-r) : "file shrank while being read");
                        return r;
                }
                len += (size_t) k;
        }
        close(fd);
        buf[len] = '\0';

        if (memchr(buf, '\0', len)) {
                free(buf);
                errbuf_set(err, errlen, "migration %s/%s contains a NUL byte: it must be plain SQL text",
                        dir, name);
                return -EINVAL;
        }
        r = migrate_checksum(buf, len, m->checksum);
        if (r < 0) {
                free(buf);
                errbuf_set(err, errlen, "cannot compute the SHA-256 of migration %s/%s", dir, name);
                return r;
        }
        m->name = strdup(name);
        if (!m->name) {
                free(buf);
                errbuf_set(err, errlen, "out of memory reading migration %s/%s", dir, name);
                return -ENOMEM;
        }
        m->sql = buf;
        return 0;
}

/* Only regular *.sql files count; anything else in the directory (a README,
 * an editor's backup "x.sql~", a subdirectory) is ignored, so that only
 * what looks like a migration is held to the naming rules. */
int migrate_scan_dir(const char *dir, struct migration_list *ret, char *err, size_t errlen) {
        struct migration_list list = {};
        size_t cap = 0;
        struct dirent *de;
        DIR *d;
        int r = 0;

        d = opendir(dir);
        if (!d) {
                r = -errno;
                if (r == -ENOENT)
                        errbuf_set(err, errlen,
                                "migrations directory %s does not exist: point database.migrations "
                                "(or ARBITER_MIGRATIONS) at the directory that holds the "
                                "NNNN_description.sql files",
                                dir);
                else
                        errbuf_set(err, errlen, "cannot open migrations directory %s: %s", dir, strerror(-r));
                return r;
        }

        errno = 0;
        while ((de = readdir(d))) {
                struct stat st;

                if (de->d_name[0] == '.' || !ends_with(de->d_name, MIGRATE_SUFFIX))
                        continue;
                if (fstatat(dirfd(d), de->d_name, &st, 0) < 0) {
                        r = -errno;
                        errbuf_set(err, errlen, "cannot stat %s/%s: %s", dir, de->d_name, strerror(-r));
                        goto fail;
                }
                if (!S_ISREG(st.st_mode))
                        continue;
                if (list.n == cap) {
                        size_t ncap = cap ? 2 * cap : 16;
                        struct migration *items = realloc(list.items, ncap * sizeof *items);
                        if (!items) {
                                r = -ENOMEM;
                                errbuf_set(err, errlen, "out of memory scanning %s", dir);
                                goto fail;
                        }
                        list.items = items;
                        cap = ncap;
                }
                list.items[list.n] = (struct migration) {};
                r = read_migration(dirfd(d), dir, de->d_name, &list.items[list.n], err, errlen);
                if (r < 0)
                        goto fail;
                list.n++;
                errno = 0;
        }
        if (errno != 0) {
                r = -errno;
                errbuf_set(err, errlen, "cannot read migrations directory %s: %s", dir, strerror(-r));
                goto fail;
        }
        closedir(d);
        d = NULL;

        r = migrate_sort_and_check(&list, err, errlen);
        if (r < 0) {
                size_t used = err ? strlen(err) : 0;
                if (err && used + 1 < errlen)
                        snprintf(err + used, errlen - used, " (in %s)", dir);
                goto fail;
        }
        *ret = list;
        return 0;

fail:
        if (d)
                closedir(d);
        migration_list_done(&list);
        return r;
}

/* Short form of a checksum for messages: enough to tell two apart. */
#define CHECKSUM_SHOWN 12

/* Walks both sorted lists in step.  Every applied row must match a file of
 * the same version, name and checksum, and the applied versions must be a
 * prefix of the files: a file numbered below an applied one that was never
 * applied means someone inserted a migration into history, which would run
 * it after newer ones on existing databases and before them on new ones. */
int migrate_plan(const struct migration_list *files, const struct migration_list *applied,
                 size_t *ret_first_pending, char *err, size_t errlen) {
        size_t i = 0;

        for (size_t j = 1; j < applied->n; j++)
                if (applied->items[j].version <= applied->items[j - 1].version) {
                        errbuf_set(err, errlen, "schema_migrations lists version %d after version %d: "
                                "the applied rows must be unique and read in ascending order",
                                applied->items[j].version, applied->items[j - 1].version);
                        return -EINVAL;
                }

        for (size_t j = 0; j < applied->n; j++) {
                const struct migration *a = &applied->items[j];

                if (i < files->n && files->items[i].version < a->version) {
                        errbuf_set(err, errlen,
                                "migration %s was never applied, but the newer %s (version %d) was: "
                                "a migration cannot be inserted before one that is already applied; "
                                "renumber %s above %d",
                                files->items[i].name, a->name, a->version,
                                files->items[i].name, applied->items[applied->n - 1].version);
                        return -EINVAL;
                }
                if (i == files->n || files->items[i].version > a->version) {
                        if (files->n == 0 || a->version > files->items[files->n - 1].version)
                                errbuf_set(err, errlen,
                                        "the database has migration %s (version %d), which this arbiterd "
                                        "does not know (its newest is %s): a newer arbiterd has migrated "
                                        "this database; run that version, or use another database",
                                        a->name, a->version,
                                        files->n ? files->items[files->n - 1].name : "none");
                        else
                                errbuf_set(err, errlen,
                                        "migration %s (version %d) is recorded as applied, but there is no "
                                        "file for it: restore the released file into the migrations directory",
                                        a->name, a->version);
                        return -EINVAL;
                }

                const struct migration *f = &files->items[i];
                if (strcmp(f->name, a->name) != 0) {
                        errbuf_set(err, errlen,
                                "migration version %d was applied as %s, but the file is now named %s: "
                                "restore the released file name",
                                a->version, a->name, f->name);
                        return -EINVAL;
                }
                if (strcmp(f->checksum, a->checksum) != 0) {
                        errbuf_set(err, errlen,
                                "migration %s was changed after it was applied to this database "
                                "(checksum %.*s… on disk, %.*s… applied): restore the released file "
                                "and add a new migration instead",
                                f->name, CHECKSUM_SHOWN, f->checksum, CHECKSUM_SHOWN, a->checksum);
                        return -ESTALE;
                }
                i++;
        }
        *ret_first_pending = i;
        return 0;
}

void migration_list_done(struct migration_list *list) {
        if (!list)
                return;
        for (size_t i = 0; i < list->n; i++) {
                free(list->items[i].name);
                free(list->items[i].sql);
        }
        free(list->items);
        list->items = NULL;
        list->n = 0;
}
