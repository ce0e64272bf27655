/* SPDX-License-Identifier: MIT */
/*
 * tools/lib/scenario/scenario_image.h - the images a scenario names: a
 * process's `images:` and the kernel's `drivers:`, read as written, and
 * the step of scenario_finish() that hands them to the address spaces
 * (scheduler_model/modules.h) before their defaults, bases and checks;
 * a problem the address spaces find in an image the scenario named is one
 * line located at that image (or function).
 *
 *   processes[i].images / drivers: [{name, path, size, base, timestamp,
 *        |     checksum, pdb: {guid, age, name} | none,
 *        |     functions: [{name, rva, size, weight}], load, unload}]
 *   scenario_images_add()     into a mod_cfg, in list order, first
 *   scenario_images_problem() a mod_problem back to the key that caused it
 */
#ifndef TOOLS_LIB_SCENARIO_SCENARIO_IMAGE_H
#define TOOLS_LIB_SCENARIO_SCENARIO_IMAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "scheduler_model/modules.h"
#include "tools/lib/common/error.h"
#include "tools/lib/scenario/schema.h"

#define SCENARIO_MAX_IMAGES    64   /* images named by the scenario, processes' and drivers */
#define SCENARIO_IMAGE_FNS     32   /* functions named in one image */
#define SCENARIO_IMAGE_DRIVER  (-1) /* the owner of a kernel module (drivers:) */
#define SCENARIO_IMAGE_NO_LOAD 0u   /* load: mapped when its process starts */

/** struct scenario_image_fn - one item of an image's `functions:`. */
struct scenario_image_fn {
	char name[MOD_FN_NAME_MAX];
	uint32_t rva;
	uint32_t size;
	uint32_t weight;
};

/**
 * struct scenario_image - one image as written.
 * @owner:     the process item's index, or SCENARIO_IMAGE_DRIVER
 * @given:     MOD_GIVEN_* of what the item says (the rest is derived)
 * @load_ns:   when it is loaded (0: with its process, or before the session)
 * @unload_ns: when it is unloaded (MOD_NEVER: with its process, or never)
 * @line/@col: where the item starts, for the messages of the checks
 */
struct scenario_image {
	int owner;
	char name[MOD_NAME_MAX];
	char path[MOD_PATH_MAX];
	uint64_t size;
	uint64_t base;
	uint32_t timestamp;
	uint32_t checksum;
	uint8_t pdb_guid[16];
	uint32_t pdb_age;
	char pdb_name[MOD_NAME_MAX];
	unsigned given;
	uint64_t load_ns;
	uint64_t unload_ns;
	unsigned nfn;
	struct scenario_image_fn fn[SCENARIO_IMAGE_FNS];
};

/** struct scenario_images - every image the scenario names, in the order written. */
struct scenario_images {
	unsigned n;
	struct scenario_image im[SCENARIO_MAX_IMAGES];
};

/*
 * Readers and printers of the keys: processes[].images (the list of the
 * item being applied, w->item) and drivers, both finding the struct
 * scenario_images at @d->off in the root.
 */
int scenario_apply_images(struct sk_walk *w, const struct sk_desc *d, void *base,
			  const struct yt_node *n);
int scenario_apply_drivers(struct sk_walk *w, const struct sk_desc *d, void *base,
			   const struct yt_node *n);
void scenario_print_images(FILE *f, const struct scenario_images *ims, int owner);

/** scenario_images_drop - forget the images of process item @owner (its item is new). */
void scenario_images_drop(struct scenario_images *ims, int owner);

/**
 * scenario_images_add - the images of the processes (items below
 * @nprocesses; item i is address space i + 2, after Idle and System) and
 * the drivers into @m, in order: the image of index k of @m is the k-th
 * kept. @kept[k] says which of @ims it is.
 * Return: 0 or -ENOSPC.
 */
int scenario_images_add(const struct scenario_images *ims, unsigned nprocesses, struct mod_cfg *m,
			unsigned kept[SCENARIO_MAX_IMAGES], unsigned *nkept);

/**
 * scenario_images_check - what the address spaces do not check: an image
 * unloaded before it is loaded, loaded or unloaded past 1 day. Return: 0 or
 * -EINVAL with @err located at the image.
 */
int scenario_images_check(const struct scenario_images *ims, unsigned nprocesses,
			  const struct sk_where_log *where, const char *source,
			  struct etwforge_error *err);

/**
 * scenario_images_problem - report @p (from mod_cfg_finish() over @m, whose
 * first @nkept images are the scenario's, @kept as scenario_images_add()
 * said) at the key of the image or function it names: "drivers.1",
 * "processes.3.images.0.functions.2"; a problem of a default image
 * alone at "processes". Return: -EINVAL.
 */
int scenario_images_problem(const struct scenario_images *ims, const struct mod_cfg *m,
			    const unsigned *kept, unsigned nkept, const struct mod_problem *p,
			    const struct sk_where_log *where, const char *source,
			    struct etwforge_error *err);

#endif /* TOOLS_LIB_SCENARIO_SCENARIO_IMAGE_H */
