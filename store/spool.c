/* store/spool.c — see spool.h.
 *
 * Invariants: [0, consumed) holds records already written to the database;
 * [consumed, size) holds whole, CRC-checked records; `pending` counts the
 * latter.  After a crash the consumed prefix is replayed again: the
 * database inserts are idempotent (ON CONFLICT DO NOTHING), so that costs
 * time, never correctness.
 */
#include "store/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define HEADER_LEN 8
/* CRC-32C, reflected polynomial 0x82f63b78: the checksum ext4, iSCSI and
 * SCTP use for exactly this, with hardware support on most CPUs. */
#define CRC32C_POLY 0x82f63b78u

struct spool {
        int fd;
        off_t size;
        off_t consumed;
        size_t pending;
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

int spool_open(const char *path, struct spool **ret, size_t *ret_records, size_t *ret_truncated) {
        struct spool *s;
        struct stat st;
        off_t at = 0;
        size_t n = 0;
        int fd, r;

        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return -errno;
        if (fstat(fd, &st) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        for (;;) {
                uint8_t *data;
                size_t len;
                r = read_record(fd, st.st_size, &at, &data, &len);
                if (r == -ENODATA || r == -EBADMSG)
                        break;
                if (r < 0) {
                        close(fd);
                        return r;
                }
                free(data);
                n++;
        }
        if (at < st.st_size) {
                /* a torn tail: what follows the last whole record was never acknowledged */
                if (ftruncate(fd, at) < 0 || fsync(fd) < 0) {
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
        s->size = at;
        s->pending = n;
        if (ret_records)
                *ret_records = n;
        if (ret_truncated)
                *ret_truncated = (size_t) (st.st_size - at);
        *ret = s;
        return 0;
}

void spool_close(struct spool *s) {
        if (!s)
                return;
        close(s->fd);
        free(s);
}

int spool_append(struct spool *s, const void *data, size_t len) {
        uint8_t h[HEADER_LEN];
        size_t done = 0;

        if (len == 0 || len > SPOOL_MAX_RECORD)
                return -EINVAL;
        put_le32(h, (uint32_t) len);
        put_le32(h + 4, spool_crc32c(data, len));
        struct {
                const void *p;
                size_t n;
        } parts[2] = { { h, HEADER_LEN }, { data, len } };
        off_t at = s->size;
        for (int i = 0; i < 2; i++) {
                done = 0;
                while (done < parts[i].n) {
                        ssize_t w = pwrite(s->fd, (const char *) parts[i].p + done, parts[i].n - done, at);
                        if (w < 0) {
                                if (errno == EINTR)
                                        continue;
                                return -errno;
                        }
                        done += (size_t) w;
                        at += w;
                }
        }
        if (fdatasync(s->fd) < 0)
                return -errno;
        s->size = at;
        s->pending++;
        return 0;
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
        if (s->pending == 0 && s->size > 0) {
                if (ftruncate(s->fd, 0) < 0 || fsync(s->fd) < 0)
                        return -errno;
                s->size = s->consumed = 0;
        }
        return 0;
}

size_t spool_pending(const struct spool *s) {
        return s->pending;
}
