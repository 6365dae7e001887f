/* The outage spool: what was appended (and fsync'd) survives a reopen; a
 * torn or corrupt tail is cut, never replayed; consumed records are gone. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <cmocka.h>

#include "store/spool.h"

static char dir[] = "/tmp/arbiter-spool-XXXXXX";
static char path[128];
/* The bit-flip test opens its spool once per bit: a few records on a tmpfs
 * (/dev/shm, else $XDG_RUNTIME_DIR), so that flipping every bit stays cheap
 * (the truncations' fsyncs cost nothing there).  Without a tmpfs it runs in
 * dir, and says so. */
static char flip_path[PATH_MAX];

static bool is_tmpfs(const char *d) {
        struct statfs fs;
        return d && *d && statfs(d, &fs) == 0 && fs.f_type == TMPFS_MAGIC && access(d, W_OK) == 0;
}

static int setup(void **state) {
        const char *tmpfs = is_tmpfs("/dev/shm") ? "/dev/shm"
                            : is_tmpfs(getenv("XDG_RUNTIME_DIR")) ? getenv("XDG_RUNTIME_DIR") : NULL;
        (void) state;
        if (!mkdtemp(dir))
                return -1;
        snprintf(path, sizeof path, "%s/spool", dir);
        if (tmpfs) {
                snprintf(flip_path, sizeof flip_path, "%s/arbiter-spool-flip-%ld", tmpfs, (long) getpid());
        } else {
                snprintf(flip_path, sizeof flip_path, "%s/flip", dir);
                print_message("# no tmpfs to write to (/dev/shm, $XDG_RUNTIME_DIR): the bit-flip spool is %s\n",
                              flip_path);
        }
        return 0;
}

static int teardown(void **state) {
        (void) state;
        unlink(path);
        unlink(flip_path);
        rmdir(dir);
        return 0;
}

static int reset(void **state) {
        (void) state;
        unlink(path);
        unlink(flip_path);
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

/* The spool of the bit-flip test: small, so that flipping each of its
 * bits is cheap; records of different lengths, so that a flipped length
 * can land anywhere. */
#define FLIP_RECORDS 8

static size_t read_file(const char *p, uint8_t *buf, size_t cap) {
        int fd = open(p, O_RDONLY);
        ssize_t n;

        assert_true(fd >= 0);
        n = read(fd, buf, cap);
        assert_true(n >= 0 && (size_t) n < cap);
        close(fd);
        return (size_t) n;
}

static void write_file(const char *p, const uint8_t *buf, size_t len) {
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);

        assert_true(fd >= 0);
        assert_int_equal(write(fd, buf, len), (ssize_t) len);
        close(fd);
}

/* Every single flipped bit of a spool of many records: in the last record
 * it is a torn tail (cut: nothing after it was acknowledged or can be told
 * apart from a write a crash cut short); anywhere before, whole records
 * follow the damage, so spool_open refuses (-EUCLEAN) and leaves the file
 * exactly as it found it, acknowledged records and all. */
static void a_flipped_bit_before_the_last_record_keeps_the_file(void **state) {
        char text[FLIP_RECORDS][32];
        const char *v[FLIP_RECORDS];
        uint8_t orig[1024], flipped[1024], now[1024];
        size_t size, last_at, n, cut;
        struct spool *sp;
        (void) state;

        assert_int_equal(spool_open(flip_path, &sp, NULL, NULL), 0);
        for (size_t i = 0; i < FLIP_RECORDS; i++) {
                snprintf(text[i], sizeof text[i], "record %zu%.*s", i, (int) (i * 3), "xxxxxxxxxxxxxxxxxxxxxxxx");
                v[i] = text[i];
        }
        append_strings(sp, v, FLIP_RECORDS - 1);
        struct stat st;
        assert_int_equal(stat(flip_path, &st), 0);
        last_at = (size_t) st.st_size;
        append_strings(sp, &v[FLIP_RECORDS - 1], 1);
        spool_close(sp);
        size = read_file(flip_path, orig, sizeof orig);

        for (size_t bit = 0; bit < size * 8; bit++) {
                memcpy(flipped, orig, size);
                flipped[bit / 8] ^= (uint8_t) (1u << (bit % 8));
                write_file(flip_path, flipped, size);
                int r = spool_open(flip_path, &sp, &n, &cut);
                if (bit / 8 >= last_at) {
                        struct seen seen = { 0 };
                        if (r != 0)
                                fail_msg("bit %zu (in the last record): spool_open gave %d", bit, r);
                        assert_int_equal(n, FLIP_RECORDS - 1);
                        assert_int_equal(cut, size - last_at);
                        assert_int_equal(spool_foreach(sp, collect, &seen), 0);
                        assert_int_equal(seen.n, FLIP_RECORDS - 1);
                        for (size_t i = 0; i < seen.n; i++)
                                assert_string_equal(seen.items[i], v[i]);
                        spool_close(sp);
                        assert_int_equal(read_file(flip_path, now, sizeof now), last_at);
                        continue;
                }
                if (r != -EUCLEAN) {
                        if (r == 0)
                                spool_close(sp);
                        fail_msg("bit %zu (byte %zu, before the last record at %zu): spool_open gave %d "
                                 "(%zu records, %zu bytes cut), not -EUCLEAN", bit, bit / 8, last_at, r, n, cut);
                }
                if (read_file(flip_path, now, sizeof now) != size || memcmp(now, flipped, size) != 0)
                        fail_msg("bit %zu: the refused spool was changed", bit);
        }
}

/* What a scan saw: kinds and offsets, in order. */
struct items {
        enum spool_item_kind kind[16];
        uint64_t offset[16], length[16];
        size_t n;
};

static int collect_items(void *userdata, const struct spool_item *it) {
        struct items *v = userdata;
        assert_true(v->n < 16);
        v->kind[v->n] = it->kind;
        v->offset[v->n] = it->offset;
        v->length[v->n] = it->length;
        v->n++;
        return 0;
}

/* Three records, the second's payload damaged, and a torn tail: the scan
 * names each; open refuses; the operator drops the damaged record (the
 * third stays) or cuts from it; neither is allowed while the spool is open. */
static void damage_is_shown_and_only_an_operator_repairs_it(void **state) {
        static const char *const v[] = { "first", "second", "third" };
        struct spool *sp, *busy;
        struct items items = { 0 };
        struct seen seen = { 0 };
        uint64_t second = 8 + 5, third = second + 8 + 6, gone;
        size_t n, cut;
        (void) state;

        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        append_strings(sp, v, 3);
        spool_close(sp);
        int fd = open(path, O_RDWR);
        char c;
        assert_int_equal(pread(fd, &c, 1, (off_t) second + 8 + 2), 1);
        c ^= 0x20;
        assert_int_equal(pwrite(fd, &c, 1, (off_t) second + 8 + 2), 1);
        assert_int_equal(pwrite(fd, "\x07\0", 2, (off_t) third + 8 + 5), 2);       /* a torn tail */
        close(fd);

        assert_int_equal(spool_scan(path, collect_items, &items), 0);
        assert_int_equal(items.n, 4);
        assert_int_equal(items.kind[0], SPOOL_ITEM_RECORD);
        assert_int_equal(items.kind[1], SPOOL_ITEM_DAMAGED);
        assert_int_equal(items.offset[1], second);
        assert_int_equal(items.length[1], third - second);
        assert_int_equal(items.kind[2], SPOOL_ITEM_RECORD);
        assert_int_equal(items.offset[2], third);
        assert_int_equal(items.kind[3], SPOOL_ITEM_TORN_TAIL);
        assert_int_equal(items.length[3], 2);

        assert_int_equal(spool_open(path, &sp, &n, &cut), -EUCLEAN);
        assert_int_equal(spool_drop(path, 0, NULL), -EINVAL);           /* a whole record */
        assert_int_equal(spool_truncate_at(path, second + 1, NULL), -EINVAL);   /* no item starts there */

        /* held by another open spool: no repair */
        {
                struct spool *other;
                char held[PATH_MAX];
                snprintf(held, sizeof held, "%s.held", path);
                assert_int_equal(spool_open(held, &other, NULL, NULL), 0);
                assert_int_equal(spool_open(held, &busy, NULL, NULL), -EBUSY);
                assert_int_equal(spool_truncate_at(held, 0, NULL), -EBUSY);
                spool_close(other);
                unlink(held);
        }

        assert_int_equal(spool_drop(path, second, &gone), 0);
        assert_int_equal(gone, third - second);
        assert_int_equal(spool_open(path, &sp, &n, &cut), 0);
        assert_int_equal(n, 2);
        assert_int_equal(cut, 2);
        assert_int_equal(spool_foreach(sp, collect, &seen), 0);
        assert_int_equal(seen.n, 2);
        assert_string_equal(seen.items[0], "first");
        assert_string_equal(seen.items[1], "third");
        spool_close(sp);

        assert_int_equal(spool_truncate_at(path, second, &gone), 0);
        assert_int_equal(gone, 8 + 5);
        assert_int_equal(spool_open(path, &sp, &n, &cut), 0);
        assert_int_equal(n, 1);
        assert_int_equal(cut, 0);
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
        assert_false(spool_empty(sp));          /* consumed, not yet cut */
        assert_true(spool_may_truncate(sp));
        assert_int_equal(spool_truncate(sp), 0);
        assert_true(spool_empty(sp));
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 0);
        /* and it takes new records after being emptied */
        append_strings(sp, v, 1);
        assert_int_equal(spool_pending(sp), 1);
        spool_close(sp);
}

/* The steps a writer thread takes: a frame reserved while the cut is on
 * its way lands after it, at 0; a record being written holds the cut off;
 * a failed write fails the spool for good. */
static void frames_and_cuts_keep_their_order(void **state) {
        struct spool_frame a, b, c;
        struct spool *sp;
        struct seen seen = { 0 };
        size_t n;
        (void) state;

        assert_int_equal(spool_open(path, &sp, NULL, NULL), 0);
        assert_int_equal(spool_reserve(sp, "old", 3, &a), 0);
        assert_false(spool_empty(sp));
        assert_int_equal(spool_commit(sp, &a, spool_write_frame(sp, &a)), 0);
        assert_int_equal(spool_consume(sp, 1), 0);
        assert_int_equal(spool_reserve(sp, "mid", 3, &b), 0);
        assert_false(spool_may_truncate(sp));   /* b is on its way */
        assert_int_equal(spool_commit(sp, &b, spool_write_frame(sp, &b)), 0);
        assert_int_equal(spool_consume(sp, 1), 0);
        assert_true(spool_may_truncate(sp));
        spool_truncate_begin(sp);
        assert_false(spool_empty(sp));
        assert_int_equal(spool_reserve(sp, "new", 3, &c), 0);
        assert_int_equal(c.at, 0);
        assert_int_equal(spool_truncate_end(sp, spool_truncate_file(sp)), 0);
        assert_int_equal(spool_commit(sp, &c, spool_write_frame(sp, &c)), 0);
        assert_int_equal(spool_pending(sp), 1);
        spool_close(sp);
        assert_int_equal(spool_open(path, &sp, &n, NULL), 0);
        assert_int_equal(n, 1);
        assert_int_equal(spool_foreach(sp, collect, &seen), 0);
        assert_string_equal(seen.items[0], "new");

        assert_int_equal(spool_reserve(sp, "lost", 4, &a), 0);
        assert_int_equal(spool_reserve(sp, "after", 5, &b), 0);
        assert_int_equal(spool_commit(sp, &a, -EIO), -EIO);
        assert_int_equal(spool_commit(sp, &b, 0), -EIO);       /* written, but after a failure */
        assert_int_equal(spool_reserve(sp, "more", 4, &c), -EIO);
        assert_int_equal(spool_append(sp, "more", 4), -EIO);
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
                cmocka_unit_test_setup(a_flipped_bit_before_the_last_record_keeps_the_file, reset),
                cmocka_unit_test_setup(damage_is_shown_and_only_an_operator_repairs_it, reset),
                cmocka_unit_test_setup(consumed_records_are_not_replayed, reset),
                cmocka_unit_test_setup(frames_and_cuts_keep_their_order, reset),
                cmocka_unit_test_setup(bad_sizes_are_refused, reset),
        };
        return cmocka_run_group_tests_name("spool", tests, setup, teardown);
}
