/* libFuzzer target: the spool reader (store/spool.c) on arbitrary file
 * bytes: spool_scan, spool_open with its torn-tail cut, spool_foreach,
 * and an operator's repairs (spool_drop, spool_truncate_at).
 *
 * Input: byte 0 bit 0 says how the rest makes the file.  Clear: the rest
 * is the file.  Set: the rest is a script, so that whole records are
 * common: a byte below 0x80 is a record of the next (byte % 32) + 1 bytes
 * (framed, CRC right), a byte from 0x80 the next (byte & 31) + 1 bytes as
 * they are (damage, or a record's torn half).  Bits 1.. of byte 0 choose
 * the offset spool_truncate_at is tried at when it is no item's start.
 * The file lives in a directory of its own under $ARBITER_TEST_TMP, else
 * /dev/shm, else /tmp.
 *
 * Invariants (store/spool.h, "Damage"):
 *   - spool_scan's items tile the file in order; a record's length fits,
 *     its CRC-32C (computed bitwise here) holds and its payload is the
 *     file's bytes; a damaged range is followed by a record, a torn tail
 *     by nothing; no whole record starts inside either;
 *   - spool_open refuses a file with damage in the middle (-EUCLEAN) and
 *     leaves every byte as it was; otherwise it counts the records, cuts
 *     exactly the torn tail, and spool_foreach gives every record's
 *     payload in order; a record appended then is there when it is opened
 *     again, after the others, and nothing is cut;
 *   - spool_drop at the first damaged range removes exactly those bytes:
 *     the scan is then the same without that range, the rest moved down;
 *   - spool_truncate_at at an item's start keeps the bytes before it, and
 *     anywhere else refuses (-EINVAL) and changes nothing.
 *
 * tests/unit/test_fuzz_spool.c replays tests/fuzz/corpus/spool/ through
 * spool_fuzz_check().
 */
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

#include "store/spool.h"

#ifndef FUZZ_ASSERT
#define FUZZ_ASSERT(cond) do { if (!(cond)) abort(); } while (0)
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define SPOOL_FUZZ_HEADER       8       /* u32 length, u32 CRC-32C */
#define SPOOL_FUZZ_ITEMS_MAX    8192    /* a file of the fuzzer's sizes has fewer */
#define SPOOL_FUZZ_APPENDED     "appended by the fuzzer"

struct spool_fuzz_buf {
        uint8_t *b;
        size_t len, cap;
};

static void spool_fuzz_put(struct spool_fuzz_buf *f, const void *p, size_t n) {
        if (!f->b || f->len + n > f->cap) {
                f->cap = (f->len + n) * 2 + 64;
                f->b = realloc(f->b, f->cap);
                FUZZ_ASSERT(f->b);
        }
        if (n)
                memcpy(f->b + f->len, p, n);
        f->len += n;
}

/* CRC-32C bit by bit (reflected 0x82f63b78, init and final xor all ones). */
static uint32_t spool_fuzz_crc(const uint8_t *p, size_t n) {
        uint32_t crc = 0xffffffffu;

        while (n--) {
                crc ^= *p++;
                for (int k = 0; k < 8; k++)
                        crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
        }
        return ~crc;
}

static uint32_t spool_fuzz_le32(const uint8_t *b) {
        return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

static void spool_fuzz_record(struct spool_fuzz_buf *f, const uint8_t *p, size_t n) {
        uint32_t crc = spool_fuzz_crc(p, n);
        uint8_t h[SPOOL_FUZZ_HEADER] = {
                (uint8_t) n, (uint8_t) (n >> 8), (uint8_t) (n >> 16), (uint8_t) (n >> 24),
                (uint8_t) crc, (uint8_t) (crc >> 8), (uint8_t) (crc >> 16), (uint8_t) (crc >> 24),
        };

        spool_fuzz_put(f, h, sizeof h);
        spool_fuzz_put(f, p, n);
}

/* Whether a whole record starts at b[at]: spool.h's definition. */
static bool spool_fuzz_whole(const uint8_t *b, size_t n, size_t at) {
        uint32_t len;

        if (n - at < SPOOL_FUZZ_HEADER)
                return false;
        len = spool_fuzz_le32(b + at);
        return len > 0 && len <= SPOOL_MAX_RECORD && len <= n - at - SPOOL_FUZZ_HEADER &&
               spool_fuzz_crc(b + at + SPOOL_FUZZ_HEADER, len) == spool_fuzz_le32(b + at + 4);
}

/* ---- the file --------------------------------------------------------------- */

static char spool_fuzz_dir[PATH_MAX];

static void spool_fuzz_cleanup(void) {
        char p[PATH_MAX + 16];

        snprintf(p, sizeof p, "%s/spool", spool_fuzz_dir);
        unlink(p);
        snprintf(p, sizeof p, "%s/spool.drop", spool_fuzz_dir);
        unlink(p);
        rmdir(spool_fuzz_dir);
}

static const char *spool_fuzz_path(void) {
        static char path[PATH_MAX + 16];
        const char *bases[] = { getenv("ARBITER_TEST_TMP"), "/dev/shm", "/tmp" };

        if (path[0])
                return path;
        for (size_t i = 0; i < sizeof bases / sizeof bases[0] && !spool_fuzz_dir[0]; i++) {
                if (!bases[i])
                        continue;
                snprintf(spool_fuzz_dir, sizeof spool_fuzz_dir, "%s/spool-fuzz.XXXXXX", bases[i]);
                if (!mkdtemp(spool_fuzz_dir))
                        spool_fuzz_dir[0] = '\0';
        }
        FUZZ_ASSERT(spool_fuzz_dir[0]);
        atexit(spool_fuzz_cleanup);
        snprintf(path, sizeof path, "%s/spool", spool_fuzz_dir);
        return path;
}

static void spool_fuzz_write(const char *path, const uint8_t *b, size_t n) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

        FUZZ_ASSERT(fd >= 0);
        FUZZ_ASSERT(n == 0 || write(fd, b, n) == (ssize_t) n);
        close(fd);
}

static void spool_fuzz_read(const char *path, struct spool_fuzz_buf *f) {
        uint8_t chunk[4096];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        ssize_t n;

        FUZZ_ASSERT(fd >= 0);
        f->len = 0;
        spool_fuzz_put(f, "", 0);               /* a buffer even for an empty file */
        while ((n = read(fd, chunk, sizeof chunk)) > 0)
                spool_fuzz_put(f, chunk, (size_t) n);
        FUZZ_ASSERT(n == 0);
        close(fd);
}

/* ---- scanning --------------------------------------------------------------- */

struct spool_fuzz_scan {
        size_t n;
        struct spool_item items[SPOOL_FUZZ_ITEMS_MAX];
        const uint8_t *file;
        size_t size;
};

static int spool_fuzz_on_item(void *userdata, const struct spool_item *it) {
        struct spool_fuzz_scan *s = userdata;

        FUZZ_ASSERT(s->n < SPOOL_FUZZ_ITEMS_MAX);
        s->items[s->n] = *it;
        s->items[s->n].data = NULL;     /* borrowed for the callback only */
        if (it->kind == SPOOL_ITEM_RECORD) {
                FUZZ_ASSERT(it->len >= 1 && it->len <= SPOOL_MAX_RECORD);
                FUZZ_ASSERT(it->length == SPOOL_FUZZ_HEADER + it->len);
                FUZZ_ASSERT(it->offset + it->length <= s->size);
                FUZZ_ASSERT(memcmp(it->data, s->file + it->offset + SPOOL_FUZZ_HEADER, it->len) == 0);
        }
        s->n++;
        return 0;
}

/* Scans path, whose bytes are file[0, size), and checks the items. */
static void spool_fuzz_scan(const char *path, const uint8_t *file, size_t size, struct spool_fuzz_scan *s) {
        uint64_t at = 0;

        s->n = 0;
        s->file = file;
        s->size = size;
        FUZZ_ASSERT(spool_scan(path, spool_fuzz_on_item, s) == 0);
        for (size_t i = 0; i < s->n; i++) {
                const struct spool_item *it = &s->items[i];

                FUZZ_ASSERT(it->offset == at && it->length > 0);
                switch (it->kind) {
                case SPOOL_ITEM_RECORD:
                        FUZZ_ASSERT(spool_fuzz_whole(file, size, it->offset));
                        FUZZ_ASSERT(spool_fuzz_le32(file + it->offset) == it->len);
                        break;
                case SPOOL_ITEM_DAMAGED:
                case SPOOL_ITEM_TORN_TAIL:
                        FUZZ_ASSERT((it->kind == SPOOL_ITEM_TORN_TAIL) == (i + 1 == s->n));
                        FUZZ_ASSERT(i + 1 == s->n || s->items[i + 1].kind == SPOOL_ITEM_RECORD);
                        for (uint64_t k = it->offset; k < it->offset + it->length; k++)
                                FUZZ_ASSERT(!spool_fuzz_whole(file, size, k));
                        break;
                default:
                        FUZZ_ASSERT(!"an item is a record, damage or a torn tail");
                }
                at += it->length;
        }
        FUZZ_ASSERT(at == size);
}

/* ---- opening ---------------------------------------------------------------- */

struct spool_fuzz_records {
        const struct spool_fuzz_scan *scan;
        size_t next;                    /* the next record item expected */
        bool appended;                  /* then SPOOL_FUZZ_APPENDED */
};

static int spool_fuzz_on_record(void *userdata, const void *data, size_t len) {
        struct spool_fuzz_records *r = userdata;
        const struct spool_fuzz_scan *s = r->scan;

        while (r->next < s->n && s->items[r->next].kind != SPOOL_ITEM_RECORD)
                r->next++;
        if (r->next == s->n) {
                FUZZ_ASSERT(!r->appended);
                FUZZ_ASSERT(len == strlen(SPOOL_FUZZ_APPENDED) && memcmp(data, SPOOL_FUZZ_APPENDED, len) == 0);
                r->appended = true;
                return 0;
        }
        FUZZ_ASSERT(len == s->items[r->next].len);
        FUZZ_ASSERT(memcmp(data, s->file + s->items[r->next].offset + SPOOL_FUZZ_HEADER, len) == 0);
        r->next++;
        return 0;
}

static void spool_fuzz_foreach(struct spool *sp, const struct spool_fuzz_scan *s, bool appended) {
        struct spool_fuzz_records r = { .scan = s };

        FUZZ_ASSERT(spool_foreach(sp, spool_fuzz_on_record, &r) == 0);
        while (r.next < s->n && s->items[r.next].kind != SPOOL_ITEM_RECORD)
                r.next++;
        FUZZ_ASSERT(r.next == s->n && r.appended == appended);
}

static void spool_fuzz_open(const char *path, const struct spool_fuzz_scan *s, struct spool_fuzz_buf *after) {
        size_t records = 0, tail = 0, got_records = 99, got_cut = 99;
        bool damaged = false;
        struct spool *sp;
        int r;

        for (size_t i = 0; i < s->n; i++) {
                records += s->items[i].kind == SPOOL_ITEM_RECORD;
                damaged |= s->items[i].kind == SPOOL_ITEM_DAMAGED;
                if (s->items[i].kind == SPOOL_ITEM_TORN_TAIL)
                        tail = s->items[i].length;
        }
        r = spool_open(path, &sp, &got_records, &got_cut);
        spool_fuzz_read(path, after);
        if (damaged) {
                FUZZ_ASSERT(r == -EUCLEAN);
                FUZZ_ASSERT(after->len == s->size && memcmp(after->b, s->file, s->size) == 0);
                return;
        }
        FUZZ_ASSERT(r == 0);
        FUZZ_ASSERT(got_records == records && got_cut == tail);
        FUZZ_ASSERT(spool_pending(sp) == records && spool_empty(sp) == (records == 0));
        FUZZ_ASSERT(after->len == s->size - tail && memcmp(after->b, s->file, after->len) == 0);
        spool_fuzz_foreach(sp, s, false);
        FUZZ_ASSERT(spool_append(sp, SPOOL_FUZZ_APPENDED, strlen(SPOOL_FUZZ_APPENDED)) == 0);
        spool_close(sp);

        FUZZ_ASSERT(spool_open(path, &sp, &got_records, &got_cut) == 0);
        FUZZ_ASSERT(got_records == records + 1 && got_cut == 0);
        spool_fuzz_foreach(sp, s, true);
        spool_close(sp);
}

/* ---- repairs ---------------------------------------------------------------- */

static void spool_fuzz_repairs(const char *path, const struct spool_fuzz_scan *s, uint8_t choice) {
        static struct spool_fuzz_scan again;
        struct spool_fuzz_buf now = { 0 };
        size_t first_bad = s->n;
        uint64_t cut = 0, dropped = 0, off;
        bool starts = false;

        for (size_t i = 0; i < s->n && first_bad == s->n; i++)
                if (s->items[i].kind != SPOOL_ITEM_RECORD)
                        first_bad = i;
        if (first_bad == s->n)
                return;

        /* dropping the first damaged range */
        if (s->items[first_bad].kind == SPOOL_ITEM_DAMAGED) {
                const struct spool_item *d = &s->items[first_bad];

                spool_fuzz_write(path, s->file, s->size);
                FUZZ_ASSERT(spool_drop(path, d->offset, &dropped) == 0 && dropped == d->length);
                spool_fuzz_read(path, &now);
                FUZZ_ASSERT(now.len == s->size - d->length);
                FUZZ_ASSERT(memcmp(now.b, s->file, d->offset) == 0);
                FUZZ_ASSERT(memcmp(now.b + d->offset, s->file + d->offset + d->length, now.len - d->offset) == 0);
                spool_fuzz_scan(path, now.b, now.len, &again);
                FUZZ_ASSERT(again.n == s->n - 1);
                for (size_t i = 0; i < again.n; i++) {
                        const struct spool_item *was = &s->items[i < first_bad ? i : i + 1];

                        FUZZ_ASSERT(again.items[i].kind == was->kind && again.items[i].length == was->length);
                        FUZZ_ASSERT(again.items[i].offset == (i < first_bad ? was->offset : was->offset - d->length));
                }
        }

        /* cutting at the first bad item keeps the records before it */
        spool_fuzz_write(path, s->file, s->size);
        FUZZ_ASSERT(spool_truncate_at(path, s->items[first_bad].offset, &cut) == 0);
        FUZZ_ASSERT(cut == s->size - s->items[first_bad].offset);
        spool_fuzz_read(path, &now);
        FUZZ_ASSERT(now.len == s->items[first_bad].offset && memcmp(now.b, s->file, now.len) == 0);

        /* and anywhere that is no item's start, changes nothing */
        spool_fuzz_write(path, s->file, s->size);
        off = s->size ? (uint64_t) choice * 2654435761u % (s->size + 1) : 0;
        for (size_t i = 0; i < s->n; i++)
                starts |= s->items[i].offset == off;
        starts |= off == s->size;
        if (!starts) {
                FUZZ_ASSERT(spool_truncate_at(path, off, &cut) == -EINVAL);
                spool_fuzz_read(path, &now);
                FUZZ_ASSERT(now.len == s->size && memcmp(now.b, s->file, s->size) == 0);
        }
        free(now.b);
}

static void spool_fuzz_check(const uint8_t *data, size_t size) {
        static struct spool_fuzz_scan scan;
        struct spool_fuzz_buf file = { 0 }, after = { 0 };
        const char *path = spool_fuzz_path();

        if (size < 1)
                return;
        if (!(data[0] & 1)) {
                spool_fuzz_put(&file, data + 1, size - 1);
        } else {
                for (size_t at = 1; at < size;) {
                        uint8_t op = data[at++];
                        size_t n = op < 0x80 ? (size_t) op % 32 + 1 : (size_t) (op & 31) + 1;

                        if (n > size - at)
                                n = size - at;
                        if (op < 0x80 && n > 0)
                                spool_fuzz_record(&file, data + at, n);
                        else
                                spool_fuzz_put(&file, data + at, n);
                        at += n;
                }
        }
        spool_fuzz_put(&file, "", 0);           /* a buffer even for an empty file */

        spool_fuzz_write(path, file.b, file.len);
        spool_fuzz_scan(path, file.b, file.len, &scan);
        spool_fuzz_open(path, &scan, &after);
        spool_fuzz_repairs(path, &scan, data[0] >> 1);
        unlink(path);
        free(file.b);
        free(after.b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        spool_fuzz_check(data, size);
        return 0;
}
