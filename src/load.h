/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rstatlat load WORKLOAD [OPTIONS]: the experiments the rstat lock's
 * changes were argued with, rerun by one command, with the workload's own
 * figures (docs/load.md). Runs alone, or under rstatlat as `-- COMMAND`.
 */
#ifndef RSTATLAT_LOAD_H
#define RSTATLAT_LOAD_H

/* Exits: 0 done, 1 a read failed, 2 bad usage, 3 cannot run here, 128+N stopped by signal N. */
int load_main(int argc, char **argv);

#endif
