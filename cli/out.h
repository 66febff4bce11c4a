/* out.h — every byte a command writes goes through here, and every write is checked.
 *
 * A command writes its results to standard output or to a named file (--output, fmt
 * --write). A write that fails — a full disk, a closed pipe or descriptor, an I/O error —
 * must never pass as success: it is the command's failure, exit status 3, with one message
 *     axle: error: cannot write FILE: <reason>
 * (FILE is "standard output" for stdout). A named regular file is written under a
 * temporary name in its directory and renamed into place only when every byte is out, so
 * a failed or killed run never leaves a truncated report where the old one was; a name
 * that is not a regular file (a device such as /dev/stdout, a FIFO) is written directly.
 *
 * main() calls ax_out_start first (standard descriptors occupied, stdout line-buffered so
 * a killed run keeps every line it printed) and ax_out_finish last. ax_out_start also
 * installs the out-of-memory handler (base.h): allocation failure is "axle: error: out of
 * memory (...)" and exit status 3, never an abort; and the memory budget's handler (base/mem.h):
 * an allocation beyond --memory is "axle: error: memory limit reached: ..." and exit 3, before
 * it is made. */
#ifndef AX_OUT_H
#define AX_OUT_H

#include "base/base.h"

typedef struct AxOut {
  FILE *f;      /* write here (stdout when path is NULL) */
  char *path;   /* owned: the file the output will be (a link resolved); NULL: stdout */
  char *name;   /* owned: the name as given, for messages */
  char *tmp;    /* owned: the temporary name being written, NULL when written directly */
  int mode;     /* permissions the file gets (an existing file's, else 0666 & ~umask) */
  void *sink;   /* private: the descriptor under f and the first error on it */
} AxOut;

/* Makes sure descriptors 0, 1 and 2 are open (a closed one is occupied, so that no file
 * axle opens lands on it; writes to a closed stdout then fail and are reported), and makes
 * stdout line-buffered. Call once, first thing in main. */
void ax_out_start(void);

/* The exit status of a command that returned `status`: `status`, or 3 after printing
 * the error when anything written to standard output was lost. Call last in main. */
int ax_out_finish(int status);

/* Opens path (NULL: standard output) for writing as described above. False after printing
 * "axle: error: cannot write PATH: reason"; *o is then empty. */
bool ax_out_open(AxOut *o, const char *path);

/* Flushes and checks everything written to o, closes it and renames the temporary into
 * place. True on success; false after printing the error (the temporary is removed, an
 * existing file at path is left as it was). Standard output is flushed and checked but
 * stays open. Consumes o. */
bool ax_out_commit(AxOut *o);

/* Drops what was written to o (the temporary is removed). Consumes o; an empty o is fine. */
void ax_out_abandon(AxOut *o);

/* Replaces the file at path by len bytes of data, atomically (fmt --write); keeps its
 * permissions. False after printing the error. */
bool ax_out_replace(const char *path, const char *data, size_t len);

#endif
