/* The outage spool: what was appended (and fsync'd) survives a reopen; a
 * torn or corrupt tail is cut, never replayed; consumed records are gone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "store/spool.h"

static char dir[] = "/tmp/arbiter-spool-XXXXXX";
static char path[128];

static int setup(void **state) {
        (void) state;
        if (!mkdtemp(dir))
                return -1;
        snprintf(path, sizeof path, "%s/spool", dir);
        return 0;
}

static int teardown(void **state) {
        (void) state;
        unlink(path);
        rmdir(dir);
        return 0;
}

static int reset(void **state) {
        (void) state;
        unlink(path);
        return 0;
}

struct seen {
        char items[16][64];
        size_t n;
};

static int collect(void *userdata, const void *data, size_t len) {
        struct seen *s = userdata;
        assert_true(s->n < 16 && len < 64);
        memcpy(s->items[s->n], data, len);
        s->items[s->n][len] = '\0';
        s->n++;
        return 0;
}

static void append_strings(struct spool *sp, const char *const *v, size_t n) {
        for (size_t i = 0; i < n; i++)
                assert_int_equal(spool_append(sp, v[i], strlen(v[i])), 0);
}

static void crc32c_check_value(void **state) {
        (void) state;
        assert_int_equal(spool_crc32c("123456789", 9), 0xe3069283u);
}

static void records_survive_a_reopen_in_order(void **state) {
        static const char *const v[] = { "one", "two", "three" };
        struct spool *sp;
        struct seen seen = { 0 };
        size_t n, cut;
        (void) state;

        assert_int_equal(spool_open(path, &sp, &n, &cut), 0);
        assert_int_equal(n, 0);
        append_strings(sp, v, 3);
        spool_close(sp);

        assert_int_equal(spool_open(path, &sp, &n, &cut), 0);
        assert_int_equal(n, 3);
        assert_int_equal(cut, 0);
        assert_int_equal(spool_foreach(sp, collect, &seen), 0);
        assert_int_equal(seen.n, 3);
        for (size_t i = 0; i < 3; i++)
                assert_string_equal(seen.items[i], v[i]);
        spool_close(sp);
}

/* Every way a crash can cut the last write short is truncated away, and the
 * whole records before it stay. */
static void a_torn_tail_is_cut_at_every_length(void **state) {
        static const char *const v[] = { "kept-1", "kept-2", "torn-record" };
        struct stat st;
        (void) state;

        struct spool *sp;
        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        append_strings(sp, v, 3);
        spool_close(sp);
        assert_int_equal(stat(path, &st), 0);
        off_t whole = st.st_size, two = whole - (off_t) (8 + strlen(v[2]));

        for (off_t len = two + 1; len < whole; len++) {
                assert_int_equal(truncate(path, len), 0);
                size_t n, cut;
                assert_int_equal(spool_open(path, &sp, &n, &cut), 0);
                assert_int_equal(n, 2);
                assert_int_equal(cut, (size_t) (len - two));
                spool_close(sp);
                assert_int_equal(stat(path, &st), 0);
                assert_int_equal(st.st_size, two);
                /* put the third back for the next length */
                assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
                append_strings(sp, &v[2], 1);
                spool_close(sp);
        }
}

static void a_corrupt_record_ends_the_spool_there(void **state) {
        static const char *const v[] = { "first", "second", "third" };
        struct spool *sp;
        struct seen seen = { 0 };
        size_t n, cut;
        (void) state;

        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        append_strings(sp, v, 3);
        spool_close(sp);
        /* flip a byte of the second payload */
        int fd = open(path, O_RDWR);
        off_t at = 8 + 5 + 8 + 2;
        char c;
        assert_int_equal(pread(fd, &c, 1, at), 1);
        c ^= 0x20;
        assert_int_equal(pwrite(fd, &c, 1, at), 1);
        close(fd);

        assert_int_equal(spool_open(path, &sp, &n, &cut), 0);
        assert_int_equal(n, 1);
        assert_int_equal(cut, (size_t) (8 + 6 + 8 + 5));
        assert_int_equal(spool_foreach(sp, collect, &seen), 0);
        assert_int_equal(seen.n, 1);
        assert_string_equal(seen.items[0], "first");
        spool_close(sp);
}

static void consumed_records_are_not_replayed(void **state) {
        static const char *const v[] = { "a", "b", "c" };
        struct spool *sp;
        struct seen seen = { 0 };
        struct stat st;
        (void) state;

        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        append_strings(sp, v, 3);
        assert_int_equal(spool_consume(sp, 2), 0);
        assert_int_equal(spool_pending(sp), 1);
        assert_int_equal(spool_foreach(sp, collect, &seen), 0);
        assert_int_equal(seen.n, 1);
        assert_string_equal(seen.items[0], "c");
        assert_int_equal(spool_consume(sp, 1), 0);
        assert_int_equal(spool_pending(sp), 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 0);
        /* and it takes new records after being emptied */
        append_strings(sp, v, 1);
        assert_int_equal(spool_pending(sp), 1);
        spool_close(sp);
}

static void bad_sizes_are_refused(void **state) {
        struct spool *sp;
        static char big[SPOOL_MAX_RECORD + 1];
        (void) state;

        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        assert_int_equal(spool_append(sp, "", 0), -EINVAL);
        assert_int_equal(spool_append(sp, big, sizeof big), -EINVAL);
        assert_int_equal(spool_pending(sp), 0);
        spool_close(sp);
        assert_int_equal(spool_open("/nonexistent-dir/spool", &sp, NULL, NULL), -ENOENT);
}

int main(void) {
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(crc32c_check_value),
                cmocka_unit_test_setup(records_survive_a_reopen_in_order, reset),
                cmocka_unit_test_setup(a_torn_tail_is_cut_at_every_length, reset),
                cmocka_unit_test_setup(a_corrupt_record_ends_the_spool_there, reset),
                cmocka_unit_test_setup(consumed_records_are_not_replayed, reset),
                cmocka_unit_test_setup(bad_sizes_are_refused, reset),
        };
        return cmocka_run_group_tests_name("spool", tests, setup, teardown);
}
