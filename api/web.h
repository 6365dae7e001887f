/* api/web.h — the web pages: the files under [http] web_root, served at
 * every path outside /v1.
 *
 * What it owns: the open web root (a directory descriptor taken at start)
 * and the mapping of a URL path to a file under it.  The REST server asks
 * it for the response to a GET or HEAD of a path that is not the API's.
 *
 * The mapping (web_path, pure):
 *   - "/" and a path ending in "/" name that directory's index.html;
 *   - every segment is 1 to WEB_SEGMENT_MAX of [A-Za-z0-9._-] and does not
 *     start with '.': no "..", no hidden files, no empty segments, nothing
 *     to escape with; anything else is not found;
 *   - a path without an extension that names no file is also tried with
 *     ".html" ("/scoreboard" is scoreboard.html), and one that names a
 *     directory is redirected to the path with a "/".
 * The file is opened beneath the root's descriptor without following a
 * symbolic link in its last segment, and must be a regular file.
 *
 * Responses carry the file's type by extension, an ETag (size and
 * modification time) with 304 for If-None-Match, "Cache-Control: no-cache"
 * (revalidate, so a new install shows at once), and the headers that keep
 * a page from leaking what its URL carries (a station's link holds a seat
 * token): Referrer-Policy no-referrer, a Content-Security-Policy allowing
 * only this origin, X-Content-Type-Options nosniff.
 *
 * A missing web root is not fatal: web_open() says so (the daemon logs a
 * warning naming the setting) and every page answers 404 with a sentence
 * saying why, never a silent 404.
 */
#ifndef ARBITER_API_WEB_H
#define ARBITER_API_WEB_H

#include <stddef.h>

struct MHD_Connection;
struct MHD_Response;

#define WEB_SEGMENT_MAX         64
#define WEB_PATH_MAX            256

struct web;

/* Opens root.  0 with *ret; -errno (the directory is missing or is no
 * directory) with *ret still set to a web that answers every page with a
 * 404 saying so, so that the caller can go on. */
int web_open(const char *root, struct web **ret);
void web_free(struct web *w);           /* accepts NULL */

/* The file under the root that url names, as a relative path (above).
 * 0, or -ENOENT when url can name no file. */
int web_path(const char *url, char *ret, size_t len);

/* The response to GET or HEAD of url (a path outside /v1): 200 with the
 * file, 304, 301 to the directory, or 404.  *ret_status is set; NULL only
 * when out of memory. */
struct MHD_Response *web_respond(const struct web *w, struct MHD_Connection *connection, const char *url,
                                 unsigned *ret_status);

#endif
