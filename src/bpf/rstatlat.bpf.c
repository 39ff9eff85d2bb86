// SPDX-License-Identifier: GPL-2.0
/*
 * rstatlat: cgroup rstat lock wait and hold times, per flushed cgroup.
 * This file defines the knobs, globals and maps rstatlat.bpf.h declares;
 * the programs are in the other files it lists.
 */
#define RSL_DEFINE
#include "rstatlat.bpf.h"

char LICENSE[] SEC("license") = "GPL";
