/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_groups.h - the trace's threads as at most 64 thread
 * groups, and each group's keys (fit_groups.c).
 */
#ifndef TOOLS_LIB_FIT_FIT_GROUPS_H
#define TOOLS_LIB_FIT_FIT_GROUPS_H

#include "tools/lib/fit/fit_model.h"

/** fit_groups_choose - pick the groups (fit->grp) from the processes' threads. */
void fit_groups_choose(struct fit *fit);

/**
 * fit_groups_write - the threads list: each group's keys (and its hot
 * functions, fit_images_hot()). Return: 0 or -ENOMEM.
 */
int fit_groups_write(struct fit *fit, struct fit_node *threads);

#endif /* TOOLS_LIB_FIT_FIT_GROUPS_H */
