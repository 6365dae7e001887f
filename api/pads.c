/* api/pads.c — /v1/pads and /v1/presses: the pad bus as the driver sees it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <microhttpd.h>

#include "api/handlers.h"
#include "api/json.h"
#include "common/time.h"
#include "hardware/padbus.h"

#define PRESSES_LIMIT_MAX     PADBUS_HISTORY

static json_t *faults_json(const struct frame_faults *f) {
        return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
                         "bytes", (json_int_t) f->bytes, "frames", (json_int_t) f->frames,
                         "overlong", (json_int_t) f->overlong, "cobs", (json_int_t) f->cobs,
                         "short", (json_int_t) f->short_frame, "crc", (json_int_t) f->crc,
                         "version", (json_int_t) f->version, "unknown_type", (json_int_t) f->unknown_type,
                         "bad_length", (json_int_t) f->bad_length);
}

static json_t *rfc3339(int64_t wall_usec) {
        char buf[40];
        time_t t = (time_t) (wall_usec / USEC_PER_SEC);
        struct tm tm;

        if (wall_usec <= 0)
                return json_null();
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", gmtime_r(&t, &tm));
        snprintf(buf + strlen(buf), sizeof buf - strlen(buf), ".%06lldZ", (long long) (wall_usec % USEC_PER_SEC));
        return json_string(buf);
}

static json_t *device_json(const struct padbus_port *port, uint8_t address, bool connected, int64_t last_seen_wall_usec,
                           uint64_t presses_dropped) {
        return json_pack("{s:s?, s:i, s:b, s:o, s:I}", "port", port ? port->path : NULL, "address", (int) address,
                         "connected", connected, "last_seen", rfc3339(last_seen_wall_usec),
                         "presses_dropped", (json_int_t) presses_dropped);
}

json_t *api_pad_conflict_json(const struct pad *p) {
        const struct pad_identity *id = &p->identity;
        json_t *ports, *devices;

        if (!id->conflict)
                return json_null();
        ports = json_array();
        devices = json_array();
        json_array_append_new(ports, json_string(p->port ? p->port->path : ""));
        json_array_append_new(devices, device_json(p->port, p->address, p->connected, p->last_seen_wall_usec,
                                                   id->presses_dropped));
        for (unsigned i = 0; i < id->n_rivals; i++) {
                const struct pad_rival *r = &id->rivals[i];
                if (r->refused)
                        continue;
                json_array_append_new(ports, json_string(r->port->path));
                json_t *d = device_json(r->port, r->address, r->connected, r->last_seen_wall_usec, r->presses_dropped);
                json_object_set_new(d, "same_line", json_boolean(r->same_line));
                json_array_append_new(devices, d);
        }
        return json_pack("{s:o, s:o, s:o}", "since", rfc3339(id->since_wall_usec), "ports", ports,
                         "devices", devices);
}

/* conflict (api_pad_conflict_json); refused: the devices an operator did
 * not trust, until they go away; trusted: the operator's last decision, or
 * null. */
static void identity_json(json_t *j, const struct pad *p) {
        const struct pad_identity *id = &p->identity;
        json_t *refused = json_array();

        json_object_set_new(j, "conflict", api_pad_conflict_json(p));
        for (unsigned i = 0; i < id->n_rivals; i++) {
                const struct pad_rival *r = &id->rivals[i];
                if (!r->refused)
                        continue;
                json_t *d = device_json(r->port, r->address, r->connected, r->last_seen_wall_usec, r->presses_dropped);
                json_object_set_new(d, "frames", json_integer((json_int_t) r->refused_frames));
                json_array_append_new(refused, d);
        }
        json_object_set_new(j, "refused", refused);
        json_object_set_new(j, "trusted", id->trusted_port
                                                  ? json_pack("{s:s, s:o}", "port", id->trusted_port->path, "at",
                                                              rfc3339(id->trusted_wall_usec))
                                                  : json_null());
}

json_t *api_pad_json(const struct pad *p) {
        const struct pad_counters *c = &p->counters;
        char fw[16];
        int64_t now = now_usec();
        json_t *j;

        snprintf(fw, sizeof fw, "%u.%u", p->fw_major, p->fw_minor);
        j = json_pack("{s:s, s:s, s:i, s:s, s:s?, s:i, s:b, s:o, s:I, s:{s:I, s:b, s:I, s:f, s:I, s:I, s:I},"
                         " s:{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}}",
                         "id", p->id, "kind", pad_kind_to_string(p->kind), "buttons", (int) p->n_buttons,
                         "firmware", fw, "port", p->port ? p->port->path : NULL,
                         "address", (int) p->address, "connected", p->connected,
                         "last_seen", rfc3339(p->last_seen_wall_usec),
                         "last_seen_ago_ms", (json_int_t) (p->last_seen_usec ? (now - p->last_seen_usec) / 1000 : -1),
                         "clock",
                         "hz", (json_int_t) p->clock_hz,
                         "synced", clock_model_synced(&p->clock),
                         "offset_us", (json_int_t) clock_model_offset_us(&p->clock),
                         "drift_ppm", clock_model_drift_ppm(&p->clock),
                         "uncertainty_us", (json_int_t) clock_model_uncertainty_us(&p->clock, now),
                         "samples", (json_int_t) clock_model_samples(&p->clock),
                         "rejected", (json_int_t) clock_model_rejected(&p->clock),
                         "counters",
                         "frames", (json_int_t) c->frames, "presses", (json_int_t) c->presses,
                         "releases", (json_int_t) c->releases, "duplicates", (json_int_t) c->duplicates,
                         "late_presses", (json_int_t) c->late_presses, "syncs_sent", (json_int_t) c->syncs_sent,
                         "syncs_answered", (json_int_t) c->syncs_answered,
                         "sync_timeouts", (json_int_t) c->sync_timeouts,
                         "pad_rx_errors", (json_int_t) c->pad_rx_errors, "reconnects", (json_int_t) c->reconnects,
                         "bad_buttons", (json_int_t) c->bad_buttons);
        json_t *counters = json_object_get(j, "counters");
        json_object_set_new(counters, "moves", json_integer((json_int_t) c->moves));
        json_object_set_new(counters, "conflicts", json_integer((json_int_t) c->conflicts));
        json_object_set_new(counters, "conflict_presses", json_integer((json_int_t) c->conflict_presses));
        json_object_set_new(counters, "refused_frames", json_integer((json_int_t) c->refused_frames));
        identity_json(j, p);
        return j;
}

static json_t *polling_json(const struct padbus_port *p) {
        if (!p->rs485)
                return NULL;
        return json_pack("{s:I, s:I, s:I, s:I}", "polls", (json_int_t) p->polling.polls,
                         "poll_timeouts", (json_int_t) p->polling.poll_timeouts,
                         "discoveries", (json_int_t) p->polling.discoveries,
                         "dropped", (json_int_t) p->polling.dropped);
}

static json_t *port_json(const struct padbus_port *p) {
        return json_pack("{s:s, s:b, s:b, s:b, s:b, s:i, s:s?, s:o, s:I, s:I, s:I, s:b, s:o?}",
                         "path", p->path, "open", p->open, "low_latency", p->low_latency,
                         "pseudo_terminal", p->is_pty, "wire_time", p->wire_time, "opens", (int) p->opens,
                         "error", p->last_error[0] ? p->last_error : NULL,
                         "faults", faults_json(&p->faults),
                         "tx_frames", (json_int_t) p->tx_frames, "tx_dropped", (json_int_t) p->tx_dropped,
                         "bad_hellos", (json_int_t) p->bad_hellos, "rs485", p->rs485, "polling", polling_json(p));
}

void handle_pads_list(struct api_request *req) {
        struct padbus *b = req->deps->pads;
        json_t *pads = json_array(), *ports = json_array();

        for (size_t i = 0; i < padbus_n_pads(b); i++)
                json_array_append_new(pads, api_pad_json(padbus_pad(b, i)));
        for (size_t i = 0; i < padbus_n_ports(b); i++)
                json_array_append_new(ports, port_json(padbus_port(b, i)));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o, s:o, s:i}", "items", pads, "ports", ports,
                                                   "connected", (int) padbus_connected(b)));
}

static const struct pad *find(struct api_request *req) {
        const char *id = route_param(&req->match, "id");
        const struct pad *p = req->deps->pads ? padbus_find(req->deps->pads, id) : NULL;

        if (!p)
                api_reply_problem(req, MHD_HTTP_NOT_FOUND,
                                  "no pad with id \"%.40s\" has been seen since arbiterd started; "
                                  "GET /v1/pads lists the pads", id);
        return p;
}

void handle_pad_get(struct api_request *req) {
        const struct pad *p = find(req);
        if (p)
                api_reply_json(req, MHD_HTTP_OK, api_pad_json(p));
}

void handle_pad_identify(struct api_request *req) {
        const struct pad *p = find(req);
        int r;

        if (!p)
                return;
        r = padbus_identify(req->deps->pads, p->id);
        if (r == -ENOTCONN) {
                api_reply_problem(req, MHD_HTTP_CONFLICT, "pad %s is not connected (last seen on %s)", p->id,
                                  p->port ? p->port->path : "no port");
                return;
        }
        if (r < 0) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "identify failed: %s", strerror(-r));
                return;
        }
        api_reply_json(req, MHD_HTTP_OK, api_pad_json(p));
}

/* POST /v1/pads/{id}/trust {"port"}: the operator's decision in an
 * identity conflict (hardware/padbus.h, "Identity"). */
void handle_pad_trust(struct api_request *req) {
        const struct pad *p = find(req);
        const char *port = json_string_value(json_object_get(req->body, "port"));
        int r;

        if (!p)
                return;
        if (!port || !*port) {
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "port: the path of the serial port whose device is the pad, as GET /v1/pads/%s "
                                  "lists it under conflict.ports", p->id);
                return;
        }
        r = padbus_trust(req->deps->pads, p->id, port, req->token_name);
        switch (r) {
        case 0:
                api_reply_json(req, MHD_HTTP_OK, api_pad_json(p));
                return;
        case -ENODEV:
                api_reply_problem(req, MHD_HTTP_BAD_REQUEST,
                                  "port: \"%.200s\" is not one of [pads] ports (GET /v1/pads lists them)", port);
                return;
        case -EALREADY:
                api_reply_problem(req, MHD_HTTP_CONFLICT,
                                  "pad %s is not in an identity conflict and no device claiming it is refused: "
                                  "there is nothing to decide", p->id);
                return;
        case -ESRCH:
                api_reply_problem(req, MHD_HTTP_CONFLICT,
                                  "no device on %.200s claims to be pad %s; the devices that do are in "
                                  "GET /v1/pads/%s (conflict.devices, refused)", port, p->id, p->id);
                return;
        default:
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "trust failed: %s", strerror(-r));
                return;
        }
}

json_t *api_press_json(const struct pad_press *p) {
        return json_pack("{s:I, s:s, s:i, s:I, s:I, s:I, s:i, s:b, s:b}",
                         "seq", (json_int_t) p->seq, "pad", p->pad->id, "button", (int) p->button,
                         "time_us", (json_int_t) p->time_usec, "uncertainty_us", (json_int_t) p->uncertainty_usec,
                         "received_us", (json_int_t) p->received_usec, "event_no", (int) p->event_no,
                         "clock_fallback", p->clock_fallback, "late", p->late);
}

void handle_presses_list(struct api_request *req) {
        long long limit, after;
        struct pad_press *buf;
        size_t n;
        json_t *items;

        if (!page_params(req, &limit, &after))
                return;
        if (limit > PRESSES_LIMIT_MAX)
                limit = PRESSES_LIMIT_MAX;
        buf = calloc((size_t) limit, sizeof *buf);
        if (!buf) {
                api_reply_problem(req, MHD_HTTP_INTERNAL_SERVER_ERROR, "out of memory");
                return;
        }
        n = req->deps->pads ? padbus_presses_since(req->deps->pads, (uint64_t) after, buf, (size_t) limit) : 0;
        items = json_array();
        for (size_t i = 0; i < n; i++)
                json_array_append_new(items, api_press_json(&buf[i]));
        api_reply_json(req, MHD_HTTP_OK, json_pack("{s:o, s:o}", "items", items, "next",
                                                   n ? json_integer((json_int_t) buf[n - 1].seq)
                                                     : json_integer(after)));
        free(buf);
}
