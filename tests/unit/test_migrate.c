/* tests/unit/test_migrate.c — the migration plan (store/migrate.h): file
 * names, ordering, checksums, and every way a plan refuses. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "store/migrate.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char SHA256_ABC[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
static const char SHA256_EMPTY[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

/* ---- names ---- */

static void test_parse_name_good(void **state) {
        static const struct {
                const char *name;
                int version;
        } cases[] = {
                { "0001_init.sql", 1 },
                { "0002_pads.sql", 2 },
                { "0010_match_inputs.sql", 10 },
                { "0123_x9.sql", 123 },
                { "9999_last.sql", 9999 },
                { "0007_a.sql", 7 },
                { "0008___.sql", 8 },
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                int v = -1;
                assert_int_equal(migrate_parse_name(cases[i].name, &v), 0);
                assert_int_equal(v, cases[i].version);
        }
}

static void test_parse_name_bad(void **state) {
        static const char *const cases[] = {
                "",                     /* empty */
                ".sql",                 /* nothing but the suffix */
                "0001.sql",             /* no description */
                "0001_.sql",            /* empty description */
                "init.sql",             /* no version */
                "001_init.sql",         /* three digits */
                "00001_init.sql",       /* five digits */
                "0000_init.sql",        /* version 0 */
                "a001_init.sql",        /* letter in the version */
                "-001_init.sql",        /* sign */
                "+001_init.sql",
                " 001_init.sql",        /* leading space */
                "0001-init.sql",        /* dash instead of underscore */
                "0001init.sql",         /* no separator */
                "0001_Init.sql",        /* uppercase */
                "0001_in it.sql",       /* space */
                "0001_in.it.sql",       /* dot */
                "0001_in-it.sql",       /* dash in the description */
                "0001_x/y.sql",         /* path separator */
                "../0001_init.sql",
                "0001_init.SQL",        /* suffix case */
                "0001_init",            /* no suffix */
                "0001_init.sql.bak",    /* suffix not last */
                "0001_init.sql~",
                "0001_init.sq",
                "0001_caf\xc3\xa9.sql", /* non-ASCII */
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                int v = 4242;
                if (migrate_parse_name(cases[i], &v) != -EINVAL)
                        fail_msg("\"%s\" was accepted", cases[i]);
                assert_int_equal(v, 4242);
        }
        assert_int_equal(migrate_parse_name(NULL, NULL), -EINVAL);
        assert_int_equal(migrate_parse_name("0001_ok.sql", NULL), 0);
}

/* ---- lists built by hand ---- */

struct spec {
        const char *name;
        const char *checksum;   /* NULL: SHA256_ABC */
};

static void build(struct migration_list *list, const struct spec *specs, size_t n) {
        list->n = n;
        list->items = n ? calloc(n, sizeof *list->items) : NULL;
        assert_true(n == 0 || list->items);
        for (size_t i = 0; i < n; i++) {
                struct migration *m = &list->items[i];
                m->name = strdup(specs[i].name);
                assert_non_null(m->name);
                snprintf(m->checksum, sizeof m->checksum, "%s",
                         specs[i].checksum ? specs[i].checksum : SHA256_ABC);
                assert_int_equal(migrate_parse_name(m->name, &m->version), 0);
        }
}

static void test_sort(void **state) {
        static const struct spec specs[] = {
                { "0003_c.sql", NULL }, { "0001_a.sql", NULL }, { "0010_j.sql", NULL },
                { "0002_b.sql", NULL },
        };
        static const int want[] = { 1, 2, 3, 10 };
        struct migration_list l;
        char err[256] = "";
        (void) state;

        build(&l, specs, ARRAY_SIZE(specs));
        for (size_t i = 0; i < l.n; i++)
                l.items[i].version = 0; /* re-derived from the names */
        assert_int_equal(migrate_sort_and_check(&l, err, sizeof err), 0);
        for (size_t i = 0; i < ARRAY_SIZE(want); i++)
                assert_int_equal(l.items[i].version, want[i]);
        assert_string_equal(l.items[3].name, "0010_j.sql");
        migration_list_done(&l);
        assert_null(l.items);
        assert_int_equal(l.n, 0);
}

static void test_sort_empty(void **state) {
        struct migration_list l = {};
        (void) state;

        assert_int_equal(migrate_sort_and_check(&l, NULL, 0), 0);
        migration_list_done(&l);
        migration_list_done(NULL);
}

static void test_sort_duplicate_version(void **state) {
        static const struct spec specs[] = {
                { "0002_b.sql", NULL }, { "0001_a.sql", NULL }, { "0002_a.sql", NULL },
        };
        struct migration_list l;
        char err[256] = "";
        (void) state;

        build(&l, specs, ARRAY_SIZE(specs));
        assert_int_equal(migrate_sort_and_check(&l, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "0002_a.sql and 0002_b.sql"));
        assert_non_null(strstr(err, "version 2"));
        migration_list_done(&l);
}

static void test_sort_bad_name(void **state) {
        struct migration_list l;
        char err[256] = "";
        (void) state;

        build(&l, (const struct spec[]) { { "0001_a.sql", NULL } }, 1);
        free(l.items[0].name);
        l.items[0].name = strdup("1_a.sql");
        assert_int_equal(migrate_sort_and_check(&l, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "\"1_a.sql\""));
        assert_non_null(strstr(err, "NNNN_description.sql"));
        migration_list_done(&l);
}

/* ---- checksum ---- */

static void test_checksum(void **state) {
        char out[MIGRATE_CHECKSUM_HEX_LEN + 1];
        (void) state;

        assert_int_equal(migrate_checksum("abc", 3, out), 0);
        assert_string_equal(out, SHA256_ABC);
        assert_int_equal(migrate_checksum("", 0, out), 0);
        assert_string_equal(out, SHA256_EMPTY);
        /* FIPS 180-2 appendix B.2, the two-block message. */
        static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_int_equal(migrate_checksum(two_blocks, strlen(two_blocks), out), 0);
        assert_string_equal(out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

/* ---- plan ---- */

static const struct spec FILES3[] = {
        { "0001_init.sql", NULL }, { "0002_pads.sql", NULL }, { "0003_ratings.sql", NULL },
};

static void test_plan_ok(void **state) {
        static const struct {
                const char *what;
                size_t n_files;
                size_t n_applied;
                size_t first_pending;
        } cases[] = {
                { "fresh database", 3, 0, 0 },
                { "some applied", 3, 2, 2 },
                { "all applied", 3, 3, 3 },
                { "no migrations at all", 0, 0, 0 },
                { "one applied of one", 1, 1, 1 },
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct migration_list files, applied;
                size_t first = 999;
                char err[256] = "";

                build(&files, FILES3, cases[i].n_files);
                build(&applied, FILES3, cases[i].n_applied);
                if (migrate_plan(&files, &applied, &first, err, sizeof err) != 0)
                        fail_msg("%s: refused: %s", cases[i].what, err);
                if (first != cases[i].first_pending)
                        fail_msg("%s: first pending %zu, want %zu", cases[i].what, first,
                                 cases[i].first_pending);
                migration_list_done(&files);
                migration_list_done(&applied);
        }
}

/* Each refusal: the files, the applied rows, the error, and what the
 * message must name. */
static void test_plan_refusals(void **state) {
        static const char CHANGED[] = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
        static const struct {
                const char *what;
                struct spec files[3];
                size_t n_files;
                struct spec applied[3];
                size_t n_applied;
                int error;
                const char *must_contain[3];
        } cases[] = {
                {
                        "changed checksum",
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL } }, 2,
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", CHANGED } }, 2,
                        -ESTALE,
                        { "0002_pads.sql", "was changed after it was applied", "add a new migration" },
                },
                {
                        "database is newer",
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL } }, 2,
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL }, { "0003_future.sql", NULL } }, 3,
                        -EINVAL,
                        { "0003_future.sql", "newer arbiterd", "0002_pads.sql" },
                },
                {
                        "database is newer than an empty build",
                        { { "", NULL } }, 0,
                        { { "0001_init.sql", NULL } }, 1,
                        -EINVAL,
                        { "0001_init.sql", "newer arbiterd", NULL },
                },
                {
                        "applied file missing in the middle",
                        { { "0001_init.sql", NULL }, { "0003_ratings.sql", NULL } }, 2,
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL }, { "0003_ratings.sql", NULL } }, 3,
                        -EINVAL,
                        { "0002_pads.sql", "no file", "restore" },
                },
                {
                        "same version, different name",
                        { { "0001_init.sql", NULL }, { "0002_pad_bus.sql", NULL } }, 2,
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL } }, 2,
                        -EINVAL,
                        { "0002_pads.sql", "0002_pad_bus.sql", "version 2" },
                },
                {
                        "file inserted below an applied version",
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL }, { "0003_ratings.sql", NULL } }, 3,
                        { { "0001_init.sql", NULL }, { "0003_ratings.sql", NULL } }, 2,
                        -EINVAL,
                        { "0002_pads.sql", "0003_ratings.sql", "renumber" },
                },
                {
                        "applied rows out of order",
                        { { "0001_init.sql", NULL }, { "0002_pads.sql", NULL } }, 2,
                        { { "0002_pads.sql", NULL }, { "0001_init.sql", NULL } }, 2,
                        -EINVAL,
                        { "schema_migrations", NULL, NULL },
                },
        };
        (void) state;

        for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
                struct migration_list files, applied;
                size_t first = 999;
                char err[512] = "";
                int r;

                build(&files, cases[i].files, cases[i].n_files);
                build(&applied, cases[i].applied, cases[i].n_applied);
                r = migrate_plan(&files, &applied, &first, err, sizeof err);
                if (r != cases[i].error)
                        fail_msg("%s: got %d (%s), want %d", cases[i].what, r, err, cases[i].error);
                assert_int_equal(first, 999);
                for (size_t k = 0; k < ARRAY_SIZE(cases[i].must_contain); k++)
                        if (cases[i].must_contain[k] && !strstr(err, cases[i].must_contain[k]))
                                fail_msg("%s: \"%s\" does not mention \"%s\"", cases[i].what, err,
                                         cases[i].must_contain[k]);
                migration_list_done(&files);
                migration_list_done(&applied);
        }
}

/* ---- scanning a directory ---- */

/* Short enough that "<path>/<name>" always fits in PATH_MAX. */
#define TMPDIR_MAX 256

struct tmpdir {
        char path[TMPDIR_MAX];
};

static void write_file(const char dir[static TMPDIR_MAX], const char *name, const void *data, size_t len) {
        char path[PATH_MAX];
        FILE *f;

        snprintf(path, sizeof path, "%s/%s", dir, name);
        f = fopen(path, "wb");
        assert_non_null(f);
        assert_int_equal(fwrite(data, 1, len, f), len);
        assert_int_equal(fclose(f), 0);
}

static void rm_file(const char *dir, const char *name) {
        char path[PATH_MAX];

        snprintf(path, sizeof path, "%s/%s", dir, name);
        unlink(path);
        rmdir(path);
}

static const char *const SCAN_FILES[] = {
        "0001_init.sql", "0002_pads.sql", "README", "0003_x.sql~", ".0004_hidden.sql",
        "0005_dir.sql", "1_bad.sql", "0002_again.sql", "0006_nul.sql",
};

static int setup_dir(void **state) {
        struct tmpdir *t = calloc(1, sizeof *t);

        if (!t)
                return -1;
        snprintf(t->path, sizeof t->path, "%s/test_migrate.XXXXXX",
                 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(t->path)) {
                free(t);
                return -1;
        }
        *state = t;
        return 0;
}

static int teardown_dir(void **state) {
        struct tmpdir *t = *state;

        for (size_t i = 0; i < ARRAY_SIZE(SCAN_FILES); i++)
                rm_file(t->path, SCAN_FILES[i]);
        rmdir(t->path);
        free(t);
        return 0;
}

static void test_scan(void **state) {
        struct tmpdir *t = *state;
        static const char init[] = "CREATE TABLE players (id bigint PRIMARY KEY);\n";
        struct migration_list l = {};
        char err[512] = "", sum[MIGRATE_CHECKSUM_HEX_LEN + 1];
        char sub[PATH_MAX];

        write_file(t->path, "0002_pads.sql", "abc", 3);
        write_file(t->path, "0001_init.sql", init, strlen(init));
        write_file(t->path, "README", "not a migration", 15);
        write_file(t->path, "0003_x.sql~", "editor backup", 13);
        write_file(t->path, ".0004_hidden.sql", "hidden", 6);
        snprintf(sub, sizeof sub, "%s/0005_dir.sql", t->path);
        assert_int_equal(mkdir(sub, 0700), 0);

        assert_int_equal(migrate_scan_dir(t->path, &l, err, sizeof err), 0);
        assert_int_equal(l.n, 2);
        assert_int_equal(l.items[0].version, 1);
        assert_string_equal(l.items[0].name, "0001_init.sql");
        assert_string_equal(l.items[0].sql, init);
        assert_int_equal(migrate_checksum(init, strlen(init), sum), 0);
        assert_string_equal(l.items[0].checksum, sum);
        assert_int_equal(l.items[1].version, 2);
        assert_string_equal(l.items[1].sql, "abc");
        assert_string_equal(l.items[1].checksum, SHA256_ABC);
        migration_list_done(&l);
}

static void test_scan_empty_dir(void **state) {
        struct tmpdir *t = *state;
        struct migration_list l = {};
        char err[512] = "";

        assert_int_equal(migrate_scan_dir(t->path, &l, err, sizeof err), 0);
        assert_int_equal(l.n, 0);
        migration_list_done(&l);
}

static void test_scan_refusals(void **state) {
        struct tmpdir *t = *state;
        struct migration_list l = {};
        char err[512] = "", missing[PATH_MAX];

        write_file(t->path, "0001_init.sql", "SELECT 1;", 9);

        write_file(t->path, "1_bad.sql", "SELECT 1;", 9);
        assert_int_equal(migrate_scan_dir(t->path, &l, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "1_bad.sql"));
        assert_non_null(strstr(err, t->path));
        assert_null(l.items);
        rm_file(t->path, "1_bad.sql");

        write_file(t->path, "0001_again.sql", "SELECT 2;", 9);
        assert_int_equal(migrate_scan_dir(t->path, &l, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "0001_again.sql and 0001_init.sql"));
        rm_file(t->path, "0001_again.sql");

        write_file(t->path, "0006_nul.sql", "SELECT\0 1;", 10);
        assert_int_equal(migrate_scan_dir(t->path, &l, err, sizeof err), -EINVAL);
        assert_non_null(strstr(err, "0006_nul.sql"));
        assert_non_null(strstr(err, "NUL"));
        rm_file(t->path, "0006_nul.sql");

        rm_file(t->path, "0001_init.sql");
        snprintf(missing, sizeof missing, "%s/nonexistent", t->path);
        assert_int_equal(migrate_scan_dir(missing, &l, err, sizeof err), -ENOENT);
        assert_non_null(strstr(err, missing));
        assert_non_null(strstr(err, "database.migrations"));
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse_name_good),
                cmocka_unit_test(test_parse_name_bad),
                cmocka_unit_test(test_sort),
                cmocka_unit_test(test_sort_empty),
                cmocka_unit_test(test_sort_duplicate_version),
                cmocka_unit_test(test_sort_bad_name),
                cmocka_unit_test(test_checksum),
                cmocka_unit_test(test_plan_ok),
                cmocka_unit_test(test_plan_refusals),
                cmocka_unit_test_setup_teardown(test_scan, setup_dir, teardown_dir),
                cmocka_unit_test_setup_teardown(test_scan_empty_dir, setup_dir, teardown_dir),
                cmocka_unit_test_setup_teardown(test_scan_refusals, setup_dir, teardown_dir),
        };

        return cmocka_run_group_tests(tests, NULL, NULL);
}
