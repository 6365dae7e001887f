/* tests/integration/raw_http.c — see raw_http.h. */
#define _GNU_SOURCE
#include "tests/integration/raw_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/integration/harness.h"
#include "tests/integration/sse_client.h"

#define REQUEST_MAX 2048
#define REPLY_MAX 8192

int raw_connect(const char *from, int port) {
        struct sockaddr_in src = { .sin_family = AF_INET };
        struct sockaddr_in dst = { .sin_family = AF_INET, .sin_port = htons((uint16_t) port) };
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

        assert_true(fd >= 0);
        assert_int_equal(inet_pton(AF_INET, from, &src.sin_addr), 1);
        assert_int_equal(inet_pton(AF_INET, "127.0.0.1", &dst.sin_addr), 1);
        if (bind(fd, (struct sockaddr *) &src, sizeof src) < 0 ||
            connect(fd, (struct sockaddr *) &dst, sizeof dst) < 0)
                fail_msg("cannot connect from %s to port %d: %s", from, port, strerror(errno));
        return fd;
}

bool raw_send(int fd, const char *text) {
        size_t len = strlen(text);
        return send(fd, text, len, MSG_NOSIGNAL) == (ssize_t) len;
}

bool raw_closed(int fd, int wait_ms) {
        int64_t deadline = mono_ms() + wait_ms;
        char buf[REPLY_MAX];

        for (;;) {
                int64_t left = deadline - mono_ms();
                struct pollfd p = { .fd = fd, .events = POLLIN };

                if (left < 0)
                        return false;
                if (poll(&p, 1, (int) left) <= 0)
                        continue;
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
                        return true;
        }
}

long raw_request(const char *from, int port, const char *method, const char *path, const char *token,
                 char *head, size_t head_len) {
        char req[REQUEST_MAX], reply[REPLY_MAX], auth[256] = "";
        size_t len = 0;
        long status = 0;
        int fd = raw_connect(from, port);

        if (token)
                snprintf(auth, sizeof auth, "Authorization: Bearer %s\r\n", token);
        snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: arbiter\r\n%sConnection: close\r\n\r\n", method, path,
                 auth);
        if (raw_send(fd, req)) {
                int64_t deadline = mono_ms() + HARNESS_WAIT_MS;
                /* Connection: close — the reply ends with the connection */
                while (len < sizeof reply - 1 && mono_ms() < deadline) {
                        struct pollfd p = { .fd = fd, .events = POLLIN };
                        if (poll(&p, 1, 100) <= 0)
                                continue;
                        ssize_t n = recv(fd, reply + len, sizeof reply - 1 - len, 0);
                        if (n <= 0)
                                break;
                        len += (size_t) n;
                }
        }
        close(fd);
        reply[len] = '\0';
        if (sscanf(reply, "HTTP/1.%*d %ld", &status) != 1)
                status = 0;
        if (head) {
                char *end = strstr(reply, "\r\n\r\n");
                snprintf(head, head_len, "%.*s", end ? (int) (end - reply) : (int) len, reply);
        }
        return status;
}
