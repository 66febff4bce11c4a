/* args.h — GNU-style command lines for the verbs: options may follow operands.
 *
 * `axle verify rules/ --no-cache` means `axle verify --no-cache rules/`: ax_args_permute
 * moves every option (with its value, for the options that take one) in front of the
 * operands, keeping the order within each group, so that a verb's parser, which reads
 * options until the first operand, sees them all. `--` ends the options: what follows is
 * an operand even if it starts with '-'; the permuted line keeps one `--` right before the
 * operands when any operand starts with '-'. A lone `-` is an operand. */
#ifndef AX_ARGS_H
#define AX_ARGS_H

/* Reorders argv[1..argc) in place and returns the new argc (one less where a `--` was
 * dropped); with_value lists the options that take a value (NULL ends it). An option whose
 * value is missing stays the last option, for the parser to refuse (the operands follow
 * it: ax_opts_parse knows it had no value). */
int ax_args_permute(int argc, char **argv, const char *const *with_value);

#endif
