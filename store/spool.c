/* store/spool.c — see spool.h.
 *
 * Invariants: [0, consumed) holds records already written to the database;
 * [consumed, size) holds whole, CRC-checked, fdatasync'd records; `pending`
 * counts the latter.  [size, reserved) belongs to `writing` frames on their
 * way to the disk, committed in the order they were reserved.  The file is
 * cut to zero only when nothing is pending or being written; frames
 * reserved while the cut is on its way are placed from 0, after it.  After a crash the consumed prefix is replayed again: the
 * database inserts are idempotent (ON CONFLICT DO NOTHING), so that costs
 * time, never correctness.
 */
#include "store/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_LEN 8
/* CRC-32C, reflected polynomial 0x82f63b78: the checksum ext4, iSCSI and
 * SCTP use for exactly this, with hardware support on most CPUs. */
#define CRC32C_POLY 0x82f63b78u

struct spool {
        int fd;                 /* set by spool_open, read by spool_write_frame on any thread */
        off_t size;             /* the end of the durable records */
        off_t reserved;         /* the end of the records reserved (>= size) */
        off_t consumed;
        size_t pending;         /* durable records not yet consumed */
        size_t writing;         /* frames reserved, not yet committed */
        bool truncating;        /* the file is being cut to zero */
        bool failed;            /* a write failed: nothing more is taken */
};

uint32_t spool_crc32c(const void *data, size_t len) {
        static uint32_t table[256];
        static bool ready;
        const uint8_t *p = data;
        uint32_t crc = 0xffffffffu;

        if (!ready) {
                for (uint32_t i = 0; i < 256; i++) {
                        uint32_t c = i;
                        for (int k = 0; k < 8; k++)
                                c = c & 1 ? (c >> 1) ^ CRC32C_POLY : c >> 1;
                        table[i] = c;
                }
                ready = true;
        }
        while (len--)
                crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
        return crc ^ 0xffffffffu;
}

static uint32_t get_le32(const uint8_t *b) {
        return (uint32_t) b[0] | (uint32_t) b[1] << 8 | (uint32_t) b[2] << 16 | (uint32_t) b[3] << 24;
}

static void put_le32(uint8_t *b, uint32_t v) {
        b[0] = (uint8_t) v;
        b[1] = (uint8_t) (v >> 8);
        b[2] = (uint8_t) (v >> 16);
        b[3] = (uint8_t) (v >> 24);
}

static int read_full(int fd, void *buf, size_t len, off_t at) {
        size_t done = 0;
        while (done < len) {
                ssize_t n = pread(fd, (char *) buf + done, len - done, at + (off_t) done);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                if (n == 0)
                        return -ENODATA;
                done += (size_t) n;
        }
        return 0;
}

/* Reads the record at *at into a fresh buffer; 0, -ENODATA at a clean end,
 * -EBADMSG for a torn or corrupt record, -errno otherwise. */
static int read_record(int fd, off_t size, off_t *at, uint8_t **ret_data, size_t *ret_len) {
        uint8_t h[HEADER_LEN];
        uint32_t len;
        uint8_t *data;
        int r;

        if (*at == size)
                return -ENODATA;
        if (size - *at < HEADER_LEN)
                return -EBADMSG;
        r = read_full(fd, h, HEADER_LEN, *at);
        if (r < 0)
                return r;
        len = get_le32(h);
        if (len == 0 || len > SPOOL_MAX_RECORD || size - *at - HEADER_LEN < (off_t) len)
                return -EBADMSG;
        data = malloc(len);
        if (!data)
                return -ENOMEM;
        r = read_full(fd, data, len, *at + HEADER_LEN);
        if (r < 0) {
                free(data);
                return r;
        }
        if (spool_crc32c(data, len) != get_le32(h + 4)) {
                free(data);
                return -EBADMSG;
        }
        *at += HEADER_LEN + (off_t) len;
        *ret_data = data;
        *ret_len = len;
        return 0;
}

/* ---- scanning -------------------------------------------------------------- */

/* Whether a whole record starts at b[at] (its length fits, its CRC holds);
 * its payload length in *ret_len. */
static bool record_at(const uint8_t *b, size_t n, size_t at, uint32_t *ret_len) {
        uint32_t len;

        if (n - at < HEADER_LEN)
                return false;
        len = get_le32(b + at);
        if (len == 0 || len > SPOOL_MAX_RECORD || n - at - HEADER_LEN < len)
                return false;
        if (spool_crc32c(b + at + HEADER_LEN, len) != get_le32(b + at + 4))
                return false;
        *ret_len = len;
        return true;
}

/* Walks b[0, n) as spool.h's "Damage" says: whole records, damaged ranges
 * (bad bytes that a whole record follows) and a torn tail (bad bytes that
 * none follows).  Stops early when fn returns non-zero. */
static int scan_bytes(const uint8_t *b, size_t n, spool_scan_fn fn, void *userdata) {
        size_t at = 0;
        uint32_t len;
        int r;

        while (at < n) {
                struct spool_item it = { .offset = at };

                if (record_at(b, n, at, &len)) {
                        it.kind = SPOOL_ITEM_RECORD;
                        it.length = HEADER_LEN + len;
                        it.data = b + at + HEADER_LEN;
                        it.len = len;
                } else {
                        size_t next = at + 1;

                        while (next < n && !record_at(b, n, next, &len))
                                next++;
                        it.kind = next < n ? SPOOL_ITEM_DAMAGED : SPOOL_ITEM_TORN_TAIL;
                        it.length = next - at;
                }
                r = fn(userdata, &it);
                if (r != 0)
                        return r;
                at += it.length;
        }
        return 0;
}

/* Maps fd's size bytes read-only (NULL for an empty file). */
static int map_file(int fd, size_t size, const uint8_t **ret) {
        void *p;

        *ret = NULL;
        if (size == 0)
                return 0;
        p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED)
                return -errno;
        *ret = p;
        return 0;
}

static int file_size(int fd, size_t *ret) {
        struct stat st;

        if (fstat(fd, &st) < 0)
                return -errno;
        if (!S_ISREG(st.st_mode))
                return -EINVAL;
        *ret = (size_t) st.st_size;
        return 0;
}

int spool_scan(const char *path, spool_scan_fn fn, void *userdata) {
        const uint8_t *b = NULL;
        size_t size = 0;
        int fd, r;

        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        r = file_size(fd, &size);
        if (r == 0)
                r = map_file(fd, size, &b);
        if (r == 0) {
                r = scan_bytes(b, size, fn, userdata);
                if (b)
                        munmap((void *) b, size);
        }
        close(fd);
        return r;
}

/* What spool_open needs of a scan. */
struct open_scan {
        size_t records;
        size_t whole_end;       /* where the last whole record ends */
        bool damaged;
};

static int on_open_item(void *userdata, const struct spool_item *it) {
        struct open_scan *o = userdata;

        switch (it->kind) {
        case SPOOL_ITEM_RECORD:
                o->records++;
                o->whole_end = (size_t) (it->offset + it->length);
                return 0;
        case SPOOL_ITEM_DAMAGED:
                o->damaged = true;
                return 1;
        case SPOOL_ITEM_TORN_TAIL:
                return 0;
        }
        return 0;
}

/* The file lock that keeps one writer on a spool: a second daemon, or an
 * operator's repair while a daemon runs, gets -EBUSY. */
static int lock_file(int fd) {
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : -errno;
        return 0;
}

/* Opens path for a change: created when create, locked. */
static int open_locked(const char *path, bool create, int *ret_fd) {
        int fd = open(path, O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
        int r;

        if (fd < 0)
                return -errno;
        r = lock_file(fd);
        if (r < 0) {
                close(fd);
                return r;
        }
        *ret_fd = fd;
        return 0;
}

int spool_open(const char *path, struct spool **ret, size_t *ret_records, size_t *ret_truncated) {
        struct open_scan o = { 0 };
        const uint8_t *b = NULL;
        struct spool *s;
        size_t size = 0;
        int fd, r;

        r = open_locked(path, true, &fd);
        if (r < 0)
                return r;
        r = file_size(fd, &size);
        if (r == 0)
                r = map_file(fd, size, &b);
        if (r < 0) {
                close(fd);
                return r;
        }
        scan_bytes(b, size, on_open_item, &o);
        if (b)
                munmap((void *) b, size);
        if (o.damaged) {
                /* Whole records follow the damage: acknowledged inputs that
                 * only an operator may give up (spool.h, "Damage"). */
                close(fd);
                return -EUCLEAN;
        }
        if (o.whole_end < size) {
                /* a torn tail: what follows the last whole record was never acknowledged */
                if (ftruncate(fd, (off_t) o.whole_end) < 0 || fsync(fd) < 0) {
                        r = -errno;
                        close(fd);
                        return r;
                }
        }
        s = calloc(1, sizeof *s);
        if (!s) {
                close(fd);
                return -ENOMEM;
        }
        s->fd = fd;
        s->size = s->reserved = (off_t) o.whole_end;
        s->pending = o.records;
        if (ret_records)
                *ret_records = o.records;
        if (ret_truncated)
                *ret_truncated = size - o.whole_end;
        *ret = s;
        return 0;
}

/* ---- an operator's repairs -------------------------------------------------- */

/* Finds the item that starts at offset. */
struct find_item {
        uint64_t offset;
        struct spool_item found;
        bool is_end;            /* offset is the end of the file */
        uint64_t size;
};

static int on_find_item(void *userdata, const struct spool_item *it) {
        struct find_item *f = userdata;

        if (it->offset == f->offset) {
                f->found = *it;
                f->found.data = NULL;
                return 1;
        }
        return 0;
}

/* Locks path and scans it for the item at offset: 0 with *ret_fd and *f
 * (found.length 0 and is_end when offset is the file's end), -EINVAL when
 * no item starts there, -EBUSY while a daemon has the spool open. */
static int locate(const char *path, uint64_t offset, int *ret_fd, struct find_item *f) {
        const uint8_t *b = NULL;
        size_t size = 0;
        int fd, r;

        r = open_locked(path, false, &fd);
        if (r < 0)
                return r;
        r = file_size(fd, &size);
        if (r == 0)
                r = map_file(fd, size, &b);
        if (r < 0) {
                close(fd);
                return r;
        }
        *f = (struct find_item) { .offset = offset, .size = size };
        if (offset == size)
                f->is_end = true;
        else if (offset < size)
                scan_bytes(b, size, on_find_item, f);
        if (b)
                munmap((void *) b, size);
        if (!f->is_end && f->found.length == 0) {
                close(fd);
                return -EINVAL;
        }
        *ret_fd = fd;
        return 0;
}

int spool_truncate_at(const char *path, uint64_t offset, uint64_t *ret_cut) {
        struct find_item f;
        int fd, r;

        r = locate(path, offset, &fd, &f);
        if (r < 0)
                return r;
        r = 0;
        if (ftruncate(fd, (off_t) offset) < 0 || fsync(fd) < 0)
                r = -errno;
        close(fd);
        if (r == 0 && ret_cut)
                *ret_cut = f.size - offset;
        return r;
}

static int write_all(int fd, const uint8_t *p, size_t n) {
        while (n > 0) {
                ssize_t w = write(fd, p, n);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                p += w;
                n -= (size_t) w;
        }
        return 0;
}

/* The directory of path, fsync'd so that a rename in it is durable. */
static int sync_dir_of(const char *path) {
        char dir[PATH_MAX];
        const char *slash = strrchr(path, '/');
        int fd, r = 0;

        if (!slash)
                snprintf(dir, sizeof dir, ".");
        else if (slash == path)
                snprintf(dir, sizeof dir, "/");
        else
                snprintf(dir, sizeof dir, "%.*s", (int) (slash - path), path);
        fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        if (fsync(fd) < 0)
                r = -errno;
        close(fd);
        return r;
}

int spool_drop(const char *path, uint64_t offset, uint64_t *ret_dropped) {
        char tmp[PATH_MAX];
        struct find_item f;
        const uint8_t *b = NULL;
        int fd, out = -1, r;

        r = locate(path, offset, &fd, &f);
        if (r < 0)
                return r;
        if (f.is_end || f.found.kind != SPOOL_ITEM_DAMAGED) {
                close(fd);
                return -EINVAL;
        }
        /* The file without the damaged bytes, written beside it and renamed
         * over it, so that a crash leaves one or the other whole.  The lock
         * stays on the old file until the new one is in place. */
        r = snprintf(tmp, sizeof tmp, "%s.drop", path) >= (int) sizeof tmp ? -ENAMETOOLONG : 0;
        if (r == 0)
                r = map_file(fd, (size_t) f.size, &b);
        if (r == 0) {
                out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (out < 0)
                        r = -errno;
        }
        if (r == 0)
                r = write_all(out, b, (size_t) offset);
        if (r == 0) {
                uint64_t rest = offset + f.found.length;
                r = write_all(out, b + rest, (size_t) (f.size - rest));
        }
        if (r == 0 && fsync(out) < 0)
                r = -errno;
        if (out >= 0 && close(out) < 0 && r == 0)
                r = -errno;
        if (r == 0 && rename(tmp, path) < 0)
                r = -errno;
        if (r == 0)
                r = sync_dir_of(path);
        else
                unlink(tmp);
        if (b)
                munmap((void *) b, (size_t) f.size);
        close(fd);
        if (r == 0 && ret_dropped)
                *ret_dropped = f.found.length;
        return r;
}

void spool_close(struct spool *s) {
        if (!s)
                return;
        close(s->fd);
        free(s);
}

int spool_reserve(struct spool *s, const void *data, size_t len, struct spool_frame *ret) {
        uint8_t *b;

        if (len == 0 || len > SPOOL_MAX_RECORD)
                return -EINVAL;
        if (s->failed)
                return -EIO;
        b = malloc(HEADER_LEN + len);
        if (!b)
                return -ENOMEM;
        put_le32(b, (uint32_t) len);
        put_le32(b + 4, spool_crc32c(data, len));
        memcpy(b + HEADER_LEN, data, len);
        *ret = (struct spool_frame) { .at = s->reserved, .len = HEADER_LEN + len, .bytes = b };
        s->reserved += (off_t) ret->len;
        s->writing++;
        return 0;
}

/* A frame that could not be made durable was never acknowledged: cut it,
 * so that a restart does not replay it (best effort: the disk that failed
 * the fsync may fail this too, and the caller stops anyway). */
static int unwrite(const struct spool *s, const struct spool_frame *f, int r) {
        if (ftruncate(s->fd, f->at) == 0)
                (void) fsync(s->fd);
        return r;
}

int spool_write_frame(const struct spool *s, const struct spool_frame *f) {
        size_t done = 0;

        while (done < f->len) {
                ssize_t w = pwrite(s->fd, f->bytes + done, f->len - done, f->at + (off_t) done);
                if (w < 0) {
                        if (errno == EINTR)
                                continue;
                        return unwrite(s, f, -errno);
                }
                done += (size_t) w;
        }
        if (fdatasync(s->fd) < 0)
                return unwrite(s, f, -errno);
        return 0;
}

int spool_commit(struct spool *s, struct spool_frame *f, int r) {
        free(f->bytes);
        f->bytes = NULL;
        s->writing--;
        if (r == 0 && (s->failed || f->at != s->size))
                r = -EIO;       /* after a failure, or out of order: not durable as a record */
        if (r < 0) {
                s->failed = true;
                return r;
        }
        s->size = f->at + (off_t) f->len;
        s->pending++;
        return 0;
}

int spool_append(struct spool *s, const void *data, size_t len) {
        struct spool_frame f;
        int r = spool_reserve(s, data, len, &f);

        if (r < 0)
                return r;
        return spool_commit(s, &f, spool_write_frame(s, &f));
}

int spool_foreach(struct spool *s, spool_fn fn, void *userdata) {
        off_t at = s->consumed;

        for (;;) {
                uint8_t *data;
                size_t len;
                int r = read_record(s->fd, s->size, &at, &data, &len);
                if (r == -ENODATA)
                        return 0;
                if (r < 0)
                        return r;
                r = fn(userdata, data, len);
                free(data);
                if (r != 0)
                        return r;
        }
}

int spool_consume(struct spool *s, size_t n) {
        while (n > 0 && s->pending > 0) {
                uint8_t *data;
                size_t len;
                int r = read_record(s->fd, s->size, &s->consumed, &data, &len);
                if (r < 0)
                        return r;
                free(data);
                s->pending--;
                n--;
        }
        return 0;
}

bool spool_may_truncate(const struct spool *s) {
        return s->pending == 0 && s->writing == 0 && s->size > 0 && !s->truncating && !s->failed;
}

void spool_truncate_begin(struct spool *s) {
        s->truncating = true;
        /* What is appended from now on is written after the cut, at 0. */
        s->reserved = 0;
}

int spool_truncate_file(const struct spool *s) {
        if (ftruncate(s->fd, 0) < 0 || fsync(s->fd) < 0)
                return -errno;
        return 0;
}

int spool_truncate_end(struct spool *s, int r) {
        s->truncating = false;
        if (r < 0) {
                s->failed = true;
                return r;
        }
        s->size = s->consumed = 0;
        return 0;
}

int spool_truncate(struct spool *s) {
        if (!spool_may_truncate(s))
                return 0;
        spool_truncate_begin(s);
        return spool_truncate_end(s, spool_truncate_file(s));
}

size_t spool_pending(const struct spool *s) {
        return s->pending;
}

bool spool_empty(const struct spool *s) {
        return s->size == 0 && s->writing == 0 && !s->truncating;
}
