/* commands.h — the sub-commands of the axle binary, one function each.
 *
 * Each takes the arguments after the sub-command name (argv[0] is the sub-command) and
 * returns the process exit status documented in docs/cli.md. None calls exit(). */
#ifndef AX_COMMANDS_H
#define AX_COMMANDS_H

int ax_cmd_check(int argc, char **argv);    /* cli/cmd_check.c */
int ax_cmd_fmt(int argc, char **argv);      /* cli/cmd_check.c */
int ax_cmd_verify(int argc, char **argv);   /* cli/cmd_verify.c */
int ax_cmd_gate(int argc, char **argv);     /* cli/cmd_verify.c */
int ax_cmd_brute(int argc, char **argv);    /* cli/cmd_brute.c */
int ax_cmd_equiv(int argc, char **argv);    /* cli/cmd_equiv.c */
int ax_cmd_mugraph(int argc, char **argv);  /* cli/cmd_equiv.c */
int ax_cmd_cost(int argc, char **argv);     /* cli/cmd_cost.c */
int ax_cmd_superopt(int argc, char **argv); /* cli/cmd_superopt.c */
int ax_cmd_cuda(int argc, char **argv);     /* cli/cmd_cuda.c */
int ax_cmd_emulate(int argc, char **argv);  /* cli/cmd_emulate.c */
int ax_cmd_import(int argc, char **argv);   /* cli/cmd_import.c */
int ax_cmd_mpk(int argc, char **argv);      /* cli/cmd_mpk.c */
int ax_cmd_optimize(int argc, char **argv); /* cli/cmd_optimize.c */

#endif
