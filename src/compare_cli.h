/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RSTATLAT_COMPARE_CLI_H
#define RSTATLAT_COMPARE_CLI_H

/* `rstatlat compare ...`: argv[0] is "compare". Returns the exit status. */
int compare_main(int argc, char **argv);

#endif
