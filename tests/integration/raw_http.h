/* tests/integration/raw_http.h — HTTP/1.1 over a plain blocking socket bound
 * to a chosen source address: requests that come from another client
 * (127.0.0.2, …: all of 127.0.0.0/8 is the loopback on Linux), and requests
 * sent as slowly as a test wants, which libcurl will not do. */
#ifndef ARBITER_TESTS_RAW_HTTP_H
#define ARBITER_TESTS_RAW_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* A connection from address from to 127.0.0.1:port; fails the test when it
 * cannot be made. */
int raw_connect(const char *from, int port);
/* Sends text; false when the server has closed the connection. */
bool raw_send(int fd, const char *text);
/* Whether the server closes the connection (end of file or reset) within
 * wait_ms, discarding anything it sends before. */
bool raw_closed(int fd, int wait_ms);
/* One request from address from (token may be NULL) and its reply: the
 * status, 0 when the connection was closed or reset without one; the
 * reply's head (status line and headers) into head when not NULL. */
long raw_request(const char *from, int port, const char *method, const char *path, const char *token,
                 char *head, size_t head_len);

#endif
