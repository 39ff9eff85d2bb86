/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The views compare_print (compare_view.c) hands a comparison to, besides
 * its own text and Markdown; compare_mail_print, which takes several, is
 * compare.h's.
 */
#ifndef RSTATLAT_COMPARE_VIEW_H
#define RSTATLAT_COMPARE_VIEW_H

#include <stdio.h>
#include "compare_fmt.h"

/* The JSON view (compare_json.c). */
void compare_json_print(FILE *f, const struct comparison *c);
/* The self-contained HTML view (compare_html.c). */
void compare_html_print(FILE *f, const struct comparison *c, size_t rows);

#endif
