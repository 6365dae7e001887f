/* api/auth.c — see auth.h. */
#include "api/auth.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <openssl/evp.h>

struct auth {
        struct auth_entry *entries;
        size_t n;
        bool loaded;
};

static const char *const role_names[] = {
        [AUTH_ROLE_NONE] = "none",
        [AUTH_ROLE_SEAT] = "seat",
        [AUTH_ROLE_DISPLAY] = "display",
        [AUTH_ROLE_REFEREE] = "referee",
        [AUTH_ROLE_ADMIN] = "admin",
};

static const char b64url[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

int auth_new(struct auth **ret) {
        struct auth *a = calloc(1, sizeof *a);
        if (!a)
                return -ENOMEM;
        *ret = a;
        return 0;
}

static void entries_free(struct auth_entry *e, size_t n) {
        for (size_t i = 0; i < n; i++)
                free(e[i].name);
        free(e);
}

void auth_free(struct auth *a) {
        if (!a)
                return;
        entries_free(a->entries, a->n);
        free(a);
}

int auth_replace(struct auth *a, const struct auth_entry *entries, size_t n) {
        struct auth_entry *copy = calloc(n ? n : 1, sizeof *copy);
        if (!copy)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++) {
                copy[i] = entries[i];
                copy[i].name = strdup(entries[i].name ? entries[i].name : "");
                if (!copy[i].name) {
                        entries_free(copy, i);
                        return -ENOMEM;
                }
        }
        entries_free(a->entries, a->n);
        a->entries = copy;
        a->n = n;
        a->loaded = true;
        return 0;
}

int auth_add(struct auth *a, const struct auth_entry *e) {
        struct auth_entry *grown = realloc(a->entries, (a->n + 1) * sizeof *grown);

        if (!grown)
                return -ENOMEM;
        a->entries = grown;
        grown[a->n] = *e;
        grown[a->n].name = strdup(e->name ? e->name : "");
        if (!grown[a->n].name)
                return -ENOMEM;
        a->n++;
        return 0;
}

bool auth_loaded(const struct auth *a) {
        return a->loaded;
}

size_t auth_count(const struct auth *a) {
        return a->n;
}

/* A linear scan: a venue has tens of tokens, and the cost is dwarfed by the
 * SHA-256 of the presented token. */
const struct auth_entry *auth_lookup(const struct auth *a, const char *token) {
        char hash[AUTH_HASH_HEX_LEN + 1];

        if (!token || !auth_token_well_formed(token))
                return NULL;
        auth_token_hash(token, hash);
        for (size_t i = 0; i < a->n; i++)
                if (strcmp(a->entries[i].hash, hash) == 0)
                        return &a->entries[i];
        return NULL;
}

const char *auth_bearer(const char *header) {
        static const char scheme[] = "Bearer";

        if (!header)
                return NULL;
        header += strspn(header, " \t");
        if (strncasecmp(header, scheme, sizeof scheme - 1) != 0)
                return NULL;
        header += sizeof scheme - 1;
        if (*header != ' ' && *header != '\t')
                return NULL;
        header += strspn(header, " \t");
        return *header ? header : NULL;
}

/* Unpadded base64url of AUTH_TOKEN_RANDOM_LEN bytes: 32 bytes = 10 groups of
 * 3 (40 characters) + 2 bytes (3 characters) = 43 characters. */
int auth_token_generate(char out[AUTH_TOKEN_LEN + 1]) {
        unsigned char raw[AUTH_TOKEN_RANDOM_LEN];
        size_t got = 0, o;

        while (got < sizeof raw) {
                ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
                if (r < 0) {
                        if (errno == EINTR)
                                continue;
                        return -errno;
                }
                got += (size_t) r;
        }

        memcpy(out, AUTH_TOKEN_PREFIX, strlen(AUTH_TOKEN_PREFIX));
        o = strlen(AUTH_TOKEN_PREFIX);
        for (size_t i = 0; i < sizeof raw; i += 3) {
                uint32_t v = (uint32_t) raw[i] << 16;
                size_t left = sizeof raw - i;
                if (left > 1)
                        v |= (uint32_t) raw[i + 1] << 8;
                if (left > 2)
                        v |= raw[i + 2];
                out[o++] = b64url[(v >> 18) & 63];
                out[o++] = b64url[(v >> 12) & 63];
                if (left > 1)
                        out[o++] = b64url[(v >> 6) & 63];
                if (left > 2)
                        out[o++] = b64url[v & 63];
        }
        out[o] = '\0';
        return 0;
}

bool auth_token_well_formed(const char *s) {
        size_t plen = strlen(AUTH_TOKEN_PREFIX);

        if (strncmp(s, AUTH_TOKEN_PREFIX, plen) != 0 || strlen(s) != AUTH_TOKEN_LEN)
                return false;
        return strspn(s + plen, b64url) == AUTH_TOKEN_LEN - plen;
}

void auth_token_hash(const char *token, char out[AUTH_HASH_HEX_LEN + 1]) {
        static const char hex[] = "0123456789abcdef";
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int mdlen = 0;

        EVP_Digest(token, strlen(token), md, &mdlen, EVP_sha256(), NULL);
        for (unsigned i = 0; i < mdlen && i < AUTH_HASH_HEX_LEN / 2; i++) {
                out[2 * i] = hex[md[i] >> 4];
                out[2 * i + 1] = hex[md[i] & 15];
        }
        out[AUTH_HASH_HEX_LEN] = '\0';
}

const char *auth_role_to_string(enum auth_role r) {
        if ((unsigned) r >= sizeof role_names / sizeof role_names[0])
                return "unknown";
        return role_names[r];
}

int auth_role_from_string(const char *s) {
        for (int r = AUTH_ROLE_SEAT; r <= AUTH_ROLE_ADMIN; r++)
                if (s && strcmp(s, role_names[r]) == 0)
                        return r;
        return -EINVAL;
}
