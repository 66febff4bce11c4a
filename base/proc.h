/* proc.h — ending child processes and saying how they ended.
 *
 * The worker pool (jobs.c), the z3 helper (helper.c) and the solver binaries (pipe.c, each in
 * a process group of its own) start children that may start more, so killing a child or
 * its process group can leave a grandchild running. ax_proc_kill_tree ends the whole tree,
 * found through /proc. */
#ifndef AX_PROC_H
#define AX_PROC_H

#include <sys/types.h>

#include "base/base.h"

/* Ends pid and every process descended from it. Each is stopped (SIGSTOP) as it is found,
 * so that none can fork between the look-up and the kill, then all get SIGKILL. Does not
 * reap pid (the caller's ax_proc_reap does); descendants, reparented, are reaped by init. */
void ax_proc_kill_tree(pid_t pid);

/* waitpid(pid) retried on EINTR. Returns the status, or -1 if pid was not a child. */
int ax_proc_reap(pid_t pid);

/* "SIGSEGV", "SIGKILL", ...: the name of signal sig; NULL for one without a name here. */
const char *ax_proc_signal_name(int sig);

/* "killed by SIGKILL (signal 9)" ("killed by signal 64" for a signal without a name),
 * "exited with status 3", "ended" (status -1). Writes buf, returns it. */

/* All n bytes from or to fd (a pipe or socket to another process), retried on EINTR and
 * short transfers. False on an error or, reading, an end before n bytes. A write to a
 * reader that has gone raises SIGPIPE unless the caller blocks it. */
bool ax_proc_read_full(int fd, void *buf, size_t n);
bool ax_proc_write_full(int fd, const void *buf, size_t n);
const char *ax_proc_describe(int status, char *buf, size_t len);

#endif
