/* api/web.c — the web pages under [http] web_root (web.h). */
#include "api/web.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <microhttpd.h>

#define INDEX_FILE              "index.html"
#define HTML_SUFFIX             ".html"
/* "\"<size hex>-<mtime ns hex>\"" */
#define ETAG_MAX                48
#define MESSAGE_MAX             512

/* Only this origin, no inline script or style, nothing framed or plugged
 * in; data: images for icons drawn by the pages. */
#define CSP "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'"

struct web {
        int dir_fd;                     /* -1: no web root */
        char *root;
        int error;                      /* why there is none (errno) */
};

static const struct {
        const char *suffix, *type;
} types[] = {
        { ".html", "text/html; charset=utf-8" },
        { ".css", "text/css; charset=utf-8" },
        { ".js", "text/javascript; charset=utf-8" },
        { ".mjs", "text/javascript; charset=utf-8" },
        { ".json", "application/json" },
        { ".map", "application/json" },
        { ".webmanifest", "application/manifest+json" },
        { ".svg", "image/svg+xml" },
        { ".png", "image/png" },
        { ".jpg", "image/jpeg" },
        { ".jpeg", "image/jpeg" },
        { ".ico", "image/x-icon" },
        { ".woff2", "font/woff2" },
        { ".txt", "text/plain; charset=utf-8" },
};

int web_open(const char *root, struct web **ret) {
        struct web *w = calloc(1, sizeof *w);
        int r = 0;

        if (!w)
                return -ENOMEM;
        w->dir_fd = -1;
        w->root = strdup(root ? root : "");
        if (!w->root) {
                free(w);
                return -ENOMEM;
        }
        if (!root || !*root)
                r = -ENOENT;
        else {
                w->dir_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
                if (w->dir_fd < 0)
                        r = -errno;
        }
        w->error = -r;
        *ret = w;
        return r;
}

void web_free(struct web *w) {
        if (!w)
                return;
        if (w->dir_fd >= 0)
                close(w->dir_fd);
        free(w->root);
        free(w);
}

static bool segment_char(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
               c == '-';
}

int web_path(const char *url, char *ret, size_t len) {
        size_t at = 0, seg = 0;

        if (!url || url[0] != '/' || len == 0)
                return -ENOENT;
        for (const char *p = url + 1; *p; p++) {
                if (*p == '/') {
                        if (seg == 0)
                                return -ENOENT;         /* "//" */
                        seg = 0;
                } else if (!segment_char(*p) || (seg == 0 && *p == '.') || ++seg > WEB_SEGMENT_MAX) {
                        return -ENOENT;
                }
                if (at + 1 >= len || at + 1 >= WEB_PATH_MAX)
                        return -ENOENT;
                ret[at++] = *p;
        }
        ret[at] = '\0';
        if (at == 0 || ret[at - 1] == '/') {
                if (at + strlen(INDEX_FILE) + 1 > len)
                        return -ENOENT;
                memcpy(ret + at, INDEX_FILE, strlen(INDEX_FILE) + 1);
        }
        return 0;
}

static const char *type_of(const char *path) {
        size_t n = strlen(path);

        for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
                size_t k = strlen(types[i].suffix);

                if (n > k && strcmp(path + n - k, types[i].suffix) == 0)
                        return types[i].type;
        }
        return "application/octet-stream";
}

/* The last segment has an extension. */
static bool has_suffix(const char *path) {
        const char *slash = strrchr(path, '/');

        return strchr(slash ? slash + 1 : path, '.') != NULL;
}

static struct MHD_Response *text_response(const char *text) {
        struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), (void *) text, MHD_RESPMEM_MUST_COPY);

        if (r) {
                MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
                MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
        }
        return r;
}

static struct MHD_Response *not_found(const struct web *w, const char *url, unsigned *ret_status) {
        char msg[MESSAGE_MAX];

        *ret_status = MHD_HTTP_NOT_FOUND;
        if (w->dir_fd < 0)
                snprintf(msg, sizeof msg,
                         "404 Not Found: arbiterd has no web pages: its web_root \"%.200s\" cannot be opened (%s). "
                         "Set [http] web_root (or ARBITER_WEB) to the directory of the pages; the API is at /v1.\n",
                         w->root, strerror(w->error));
        else
                snprintf(msg, sizeof msg, "404 Not Found: %.200s is not a page of arbiterd. The pages start at /, "
                         "the API at /v1.\n", url);
        return text_response(msg);
}

/* Opens rel beneath the root: a regular file (1 with *ret_fd and *ret_st),
 * a directory (2), or nothing (0). */
static int open_beneath(const struct web *w, const char *rel, int *ret_fd, struct stat *ret_st) {
        int fd = openat(w->dir_fd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

        if (fd < 0)
                return 0;
        if (fstat(fd, ret_st) < 0 || (!S_ISREG(ret_st->st_mode) && !S_ISDIR(ret_st->st_mode))) {
                close(fd);
                return 0;
        }
        if (S_ISDIR(ret_st->st_mode)) {
                close(fd);
                return 2;
        }
        *ret_fd = fd;
        return 1;
}

static void add_page_headers(struct MHD_Response *r) {
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
        MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, "Content-Security-Policy", CSP);
}

struct MHD_Response *web_respond(const struct web *w, struct MHD_Connection *connection, const char *url,
                                 unsigned *ret_status) {
        char rel[WEB_PATH_MAX + sizeof HTML_SUFFIX], etag[ETAG_MAX];
        struct MHD_Response *r;
        const char *inm;
        struct stat st;
        int fd = -1, found;

        if (w->dir_fd < 0 || web_path(url, rel, WEB_PATH_MAX) < 0)
                return not_found(w, url, ret_status);
        found = open_beneath(w, rel, &fd, &st);
        if (found != 1 && !has_suffix(rel)) {
                size_t n = strlen(rel);
                bool dir = found == 2;

                memcpy(rel + n, HTML_SUFFIX, sizeof HTML_SUFFIX);
                found = open_beneath(w, rel, &fd, &st);
                if (found != 1 && dir) {
                        char location[WEB_PATH_MAX + 2];

                        snprintf(location, sizeof location, "%s/", url);
                        *ret_status = MHD_HTTP_MOVED_PERMANENTLY;
                        r = text_response("see the directory's page\n");
                        if (r)
                                MHD_add_response_header(r, MHD_HTTP_HEADER_LOCATION, location);
                        return r;
                }
        }
        if (found != 1)
                return not_found(w, url, ret_status);

        snprintf(etag, sizeof etag, "\"%" PRIx64 "-%" PRIx64 "\"", (uint64_t) st.st_size,
                 (uint64_t) st.st_mtim.tv_sec * UINT64_C(1000000000) + (uint64_t) st.st_mtim.tv_nsec);
        inm = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_IF_NONE_MATCH);
        if (inm && strstr(inm, etag)) {
                close(fd);
                *ret_status = MHD_HTTP_NOT_MODIFIED;
                r = MHD_create_response_from_buffer(0, (void *) "", MHD_RESPMEM_PERSISTENT);
        } else {
                *ret_status = MHD_HTTP_OK;
                /* MHD closes fd with the response; not when it makes none */
                r = MHD_create_response_from_fd((uint64_t) st.st_size, fd);
                if (r)
                        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type_of(rel));
                else
                        close(fd);
        }
        if (r) {
                MHD_add_response_header(r, MHD_HTTP_HEADER_ETAG, etag);
                add_page_headers(r);
        }
        return r;
}
