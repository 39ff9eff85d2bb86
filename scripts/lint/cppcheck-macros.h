/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For cppcheck only (scripts/lint): libbpf's macros that the sources use,
 * as cppcheck, which reads no system header, should see them.
 */
#define LIBBPF_OPTS(TYPE, NAME, ...) struct TYPE NAME = { __VA_ARGS__ }
#define bpf_object__for_each_program(pos, obj) for ((pos) = 0; (pos);)
