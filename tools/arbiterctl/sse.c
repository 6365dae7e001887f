/* tools/arbiterctl/sse.c — see sse.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/arbiterctl/sse.h"

/* A line buffer's first size: an event's line of JSON is a few hundred
 * bytes. */
#define SSE_BUFFER_INITIAL 256

void sse_parser_init(struct sse_parser *p) {
        memset(p, 0, sizeof *p);
        p->retry_ms = -1;
}

void sse_parser_restart(struct sse_parser *p) {
        p->line_len = 0;
        p->data_len = 0;
        p->data_seen = false;
        p->after_cr = false;
        p->name[0] = '\0';
}

void sse_parser_free(struct sse_parser *p) {
        free(p->line);
        free(p->data);
        p->line = p->data = NULL;
        p->line_cap = p->data_cap = 0;
}

static int grow(char **buf, size_t *cap, size_t need) {
        size_t c = *cap ? *cap : SSE_BUFFER_INITIAL;
        char *b;

        if (need <= *cap)
                return 0;
        if (need > SSE_LINE_MAX + 1)
                return -E2BIG;
        while (c < need)
                c *= 2;
        b = realloc(*buf, c);
        if (!b)
                return -ENOMEM;
        *buf = b;
        *cap = c;
        return 0;
}

static int dispatch(struct sse_parser *p, sse_event_fn fn, void *userdata) {
        struct sse_event ev;
        int r = 0;

        if (p->data_seen) {
                if (grow(&p->data, &p->data_cap, p->data_len + 1) < 0)
                        return -ENOMEM;
                p->data[p->data_len] = '\0';
                ev.id = p->id;
                ev.name = p->name[0] ? p->name : "message";
                ev.data = p->data;
                r = fn(&ev, userdata);
        }
        p->data_len = 0;
        p->data_seen = false;
        p->name[0] = '\0';
        return r;
}

/* One complete line (NUL-terminated in p->line). */
static int line(struct sse_parser *p, sse_event_fn fn, void *userdata) {
        char *l = p->line, *colon, *value;
        size_t vlen;

        if (!*l)
                return dispatch(p, fn, userdata);
        if (*l == ':')
                return 0;
        colon = strchr(l, ':');
        if (colon) {
                *colon = '\0';
                value = colon + 1;
                if (*value == ' ')
                        value++;
        } else {
                value = l + strlen(l);
        }
        vlen = strlen(value);
        if (strcmp(l, "data") == 0) {
                size_t need = p->data_len + (p->data_seen ? 1 : 0) + vlen + 1;
                int r = grow(&p->data, &p->data_cap, need);
                if (r < 0)
                        return r;
                if (p->data_seen)
                        p->data[p->data_len++] = '\n';
                memcpy(p->data + p->data_len, value, vlen);
                p->data_len += vlen;
                p->data_seen = true;
        } else if (strcmp(l, "event") == 0) {
                snprintf(p->name, sizeof p->name, "%s", value);
        } else if (strcmp(l, "id") == 0) {
                if (vlen < sizeof p->id)        /* a longer one is not arbiterd's: ignored */
                        snprintf(p->id, sizeof p->id, "%s", value);
        } else if (strcmp(l, "retry") == 0) {
                char *end;
                long ms = strtol(value, &end, 10);
                if (*value && !*end && ms >= 0)
                        p->retry_ms = ms;
        }
        return 0;
}

int sse_feed(struct sse_parser *p, const char *buf, size_t n, sse_event_fn fn, void *userdata) {
        for (size_t i = 0; i < n; i++) {
                char ch = buf[i];
                int r;

                if (ch == '\n' && p->after_cr) {
                        p->after_cr = false;
                        continue;
                }
                p->after_cr = ch == '\r';
                if (ch == '\n' || ch == '\r') {
                        r = grow(&p->line, &p->line_cap, p->line_len + 1);
                        if (r < 0)
                                return r;
                        p->line[p->line_len] = '\0';
                        p->line_len = 0;
                        r = line(p, fn, userdata);
                        if (r != 0)
                                return r;
                        continue;
                }
                r = grow(&p->line, &p->line_cap, p->line_len + 2);
                if (r < 0)
                        return r;
                p->line[p->line_len++] = ch;
        }
        return 0;
}
