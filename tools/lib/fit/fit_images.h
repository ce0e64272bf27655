/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/fit/fit_images.h - where the grouped threads' samples land: the
 * images listed, their functions, each group's hot functions (fit_images.c).
 */
#ifndef TOOLS_LIB_FIT_FIT_IMAGES_H
#define TOOLS_LIB_FIT_FIT_IMAGES_H

#include "tools/lib/fit/fit_model.h"

/**
 * fit_images_place - every sampled address of the grouped threads into an
 * image row; choose the images listed, their functions. Return: 0 or -ENOMEM.
 */
int fit_images_place(struct fit *fit);

/**
 * fit_images_write - the images of each listed process (under its map
 * @procs[i]) and the drivers (a list under @root). Return: 0 or -ENOMEM.
 */
int fit_images_write(struct fit *fit, struct fit_node *root);

/**
 * fit_images_hot - the hot map of group @g (under @gnode), at most
 * FIT_MAX_HOT entries, weights in 1..1000000. Return: 0 or -ENOMEM.
 */
int fit_images_hot(struct fit *fit, size_t g, struct fit_node *gnode);

#endif /* TOOLS_LIB_FIT_FIT_IMAGES_H */
