/* daemon/service.h — the running daemon and its one-shot modes: the only
 * place that knows every module (docs/architecture.md, "Directories").
 *
 * Exit statuses (sysexits.h, so systemd's RestartPreventExitStatus= can tell
 * a broken setup from a crash): 0 success, 64 usage, 65 the database holds
 * migrations this build refuses, 69 the database is unreachable (one-shot
 * modes only: the daemon itself waits for it), 78 bad configuration, 1 any
 * other failure to start.
 */
#ifndef ARBITER_DAEMON_SERVICE_H
#define ARBITER_DAEMON_SERVICE_H

#include <stdint.h>

#include "daemon/config.h"

#define EXIT_USAGE       64
#define EXIT_DATAERR     65
#define EXIT_UNAVAILABLE 69
#define EXIT_CONFIG      78

/* Runs the daemon until SIGTERM/SIGINT; returns the exit status.  cfg is
 * taken over (freed by the service); config_path is re-read on SIGHUP. */
int service_run(const char *config_path, struct config *cfg);

/* Connects, applies pending migrations, and returns the exit status. */
int oneshot_migrate(const struct config *cfg);

/* Connects, migrates, creates a token and prints it once on stdout. */
int oneshot_create_token(const struct config *cfg, const char *role, const char *name);

/* The operator's spool commands (daemon/spool_cmd.c): list what [database]
 * spool holds (exit 0, or 65 when it is damaged), cut it at an offset, or
 * drop the damaged range at an offset. */
int spool_cmd_check(const struct config *cfg);
int spool_cmd_truncate_at(const struct config *cfg, uint64_t offset);
int spool_cmd_drop(const struct config *cfg, uint64_t offset);

#endif
