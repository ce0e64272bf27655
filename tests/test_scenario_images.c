/* SPDX-License-Identifier: MIT */
/*
 * tests/test_scenario_images.c - the images a scenario names
 * (tools/lib/scenario/scenario_image.h): a process's images: and the
 * kernel's drivers: reach the address spaces with what they say (base,
 * size, identity, functions and their weights, load and unload), print and
 * load back, and every mistake is one located line: an unknown key with
 * its nearest, a bad GUID, overlapping bases, an image outside its range,
 * a function outside its image, an unload before the load.
 *
 * Expected values and positions are typed from the scenario text of each
 * test.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/scenario_fixture.h"
#include "tools/lib/scenario/scenario.h"

TestSuite(scenario_images, .timeout = 20.);

static const char images_scenario[] =
	"processes:\n"
	"  - name: game.exe\n"
	"    pid: 1200\n"
	"    images:\n"
	"      - name: d3d11.dll\n"
	"        size: 0x200000\n"
	"        base: 0x7ff900000000\n"
	"        timestamp: 0x5F3A0C11\n"
	"        pdb: {guid: 3C8F0528-9C07-4257-9192-78EA9AA6A1F4, age: 2, name: d3d11.pdb}\n"
	"        functions:\n"
	"          - {name: Present, rva: 0x1000, size: 0x400, weight: 30}\n"
	"        load: 50ms\n"
	"        unload: 150ms\n"
	"drivers:\n"
	"  - name: nvlddmkm.sys\n"
	"    size: 0x1000000\n"
	"    pdb: none\n"
	"    functions: [{name: DxgkDdiPresent, rva: 0x2000, size: 0x300, weight: 5}]\n"
	"threads:\n"
	"  - name: render\n"
	"    process: game.exe\n"
	"    count: 2\n"
	"    behaviour: cpu_bound\n"
	"  - name: kworker\n"
	"    process: System\n";

Test(scenario_images, images_and_drivers_reach_the_address_spaces)
{
	struct scenario *sc = new_scenario();
	const struct mod_cfg *m = &sc->modules;
	int d3d, nv, f;
	uint8_t guid[16] = {0x28, 0x05, 0x8f, 0x3c, 0x07, 0x9c, 0x57, 0x42,
			    0x91, 0x92, 0x78, 0xea, 0x9a, 0xa6, 0xa1, 0xf4};
	bool hot = false;

	cr_assert_eq(load_and_finish(sc, images_scenario), 0, "%s", serr.msg);
	d3d = mod_find_image(m, 2, false, "d3d11.dll");
	nv = mod_find_image(m, 0, true, "nvlddmkm.sys");
	cr_assert_geq(d3d, 0);
	cr_assert_geq(nv, 0);
	cr_assert_eq(m->images[d3d].base, 0x7ff900000000ull);
	cr_assert_eq(m->images[d3d].size, 0x200000u);
	cr_assert_eq(m->images[d3d].timestamp, 0x5F3A0C11u);
	cr_assert_eq(memcmp(m->images[d3d].pdb_guid, guid, 16), 0);
	cr_assert_eq(m->images[d3d].pdb_age, 2);
	cr_assert_str_eq(m->images[d3d].pdb_name, "d3d11.pdb");
	cr_assert_eq(m->images[d3d].load_ns, 50000000u);
	cr_assert_eq(m->images[d3d].unload_ns, 150000000u);
	cr_assert_str_eq(m->images[d3d].path,
			 "\\Device\\HarddiskVolume3\\Windows\\System32\\d3d11.dll");
	/* a driver: the kernel's range, the drivers' folder, no PDB */
	cr_assert(m->images[nv].kernel);
	cr_assert_geq(m->images[nv].base, 0xFFFF800000000000ull);
	cr_assert_str_eq(m->images[nv].path, "\\SystemRoot\\System32\\drivers\\nvlddmkm.sys");
	cr_assert_str_eq(m->images[nv].pdb_name, "");
	f = mod_find_function(m, (uint32_t)d3d, "Present");
	cr_assert_geq(f, 0);
	cr_assert_eq(m->functions[f].rva, 0x1000);
	/* the weighted function joins its process's group's hot list, the driver's System's */
	for (unsigned k = 0; k < m->hot_n[0]; k++) {
		hot = hot || (m->hot[m->hot_first[0] + k].fn == (uint32_t)f &&
			      m->hot[m->hot_first[0] + k].weight == 30);
	}
	cr_assert(hot, "d3d11.dll!Present is one of render's hot functions");
	f = mod_find_function(m, (uint32_t)nv, "DxgkDdiPresent");
	hot = false;
	for (unsigned k = 0; k < m->hot_n[1]; k++) {
		hot = hot || m->hot[m->hot_first[1] + k].fn == (uint32_t)f;
	}
	cr_assert(hot, "the driver's function is one of System's group's");
	for (unsigned k = 0; k < m->hot_n[0]; k++) {
		cr_assert_neq(m->hot[m->hot_first[0] + k].fn, (uint32_t)f, "not a user group's");
	}
	free(sc);
}

Test(scenario_images, images_print_and_load_back)
{
	struct scenario *sc = new_scenario(), *again = new_scenario();
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	cr_assert_eq(load_and_finish(sc, images_scenario), 0, "%s", serr.msg);
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	scenario_print(f, sc);
	fclose(f);
	cr_assert_not_null(strstr(text,
				  "drivers: [{name: \"nvlddmkm.sys\", size: 0x1000000, pdb: none, "
				  "functions: [{name: \"DxgkDdiPresent\", rva: 0x2000, size: "
				  "0x300, weight: 5}]}]"),
			   "%s", text);
	cr_assert_eq(load_and_finish(again, text), 0, "%s", serr.msg);
	cr_assert_eq(again->modules.nimages, sc->modules.nimages);
	cr_assert_eq(memcmp(again->modules.images, sc->modules.images,
			    sc->modules.nimages * sizeof(sc->modules.images[0])),
		     0);
	cr_assert_eq(memcmp(&again->modules.hot, &sc->modules.hot, sizeof(sc->modules.hot)), 0);
	free(again);
	free(sc);
	free(text);
}

Test(scenario_images, a_new_processes_list_drops_the_old_items_images)
{
	struct scenario *sc = new_scenario();

	cr_assert_eq(scenario_load_string(sc, "t.yaml", images_scenario, &serr), 0, "%s", serr.msg);
	cr_assert_eq(scenario_load_string(sc, "u.yaml",
					  "processes: [{name: other.exe}]\n"
					  "threads: [{name: w, process: other.exe}]\n",
					  &serr),
		     0, "%s", serr.msg);
	cr_assert_eq(scenario_finish(sc, &serr), 0, "%s", serr.msg);
	cr_assert_lt(mod_find_image(&sc->modules, 2, false, "d3d11.dll"), 0);
	cr_assert_geq(mod_find_image(&sc->modules, 0, true, "nvlddmkm.sys"), 0, "drivers stay");
	free(sc);
}

Test(scenario_images, every_mistake_is_one_located_line)
{
	static const struct {
		const char *from, *to, *msg;
	} bad[] = {
		{"base: 0x7ff900000000", "base: 0x7ff900000000\n        path: 1",
		 NULL}, /* a number is a name here: allowed */
		{"        load: 50ms", "        lod: 50ms",
		 "t.yaml:12:9: processes.0.images.0: unknown key \"lod\" (did you mean "
		 "\"load\"?)"},
		{"unload: 150ms", "unload: 10ms",
		 "t.yaml:5:9: processes.0.images.0: d3d11.dll: unload (10000000 ns) must come "
		 "after load (50000000 ns)"},
		{"9192-78EA9AA6A1F4", "9192-78EA9AA6A1F", /* one digit short */
		 "t.yaml:9:21: processes.0.images.0.pdb.guid: "
		 "\"3C8F0528-9C07-4257-9192-78EA9AA6A1F\" "
		 "is not a GUID such as 3C8F0528-9C07-4257-9192-78EA9AA6A1F4"},
		{"size: 0x400,", "size: 0x400000,",
		 "t.yaml:11:13: processes.0.images.0.functions.0: d3d11.dll!Present (rva 0x1000, "
		 "size 0x400000) lies outside its image (0x200000 bytes)"},
		{"    size: 0x1000000\n", "    size: 0x1000000\n    base: 0x7ff000000000\n",
		 "t.yaml:15:5: drivers.0: nvlddmkm.sys (0x7ff000000000..0x7ff001000000) does not "
		 "fit "
		 "in the kernel's address range"},
		{"size: 0x200000", "size: 0x1234",
		 "t.yaml:5:9: processes.0.images.0: d3d11.dll (0x7ff900000000..0x7ff900001234) "
		 "base "
		 "and size must be multiples of 4 KiB"},
		{"        unload: 150ms\n",
		 "        unload: 150ms\n      - {name: more.dll, size: "
		 "0x10000, base: 0x7ff9001f0000}\n",
		 "t.yaml:14:9: processes.0.images.1: more.dll (0x7ff9001f0000..0x7ff900200000) "
		 "overlaps "
		 "d3d11.dll (0x7ff900000000..0x7ff900200000)"},
		{"name: DxgkDdiPresent, rva", "nme: DxgkDdiPresent, rva",
		 "t.yaml:18:18: drivers.0.functions.0: unknown key \"nme\" (did you mean "
		 "\"name\"?)"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[2048];
		const char *at = strstr(images_scenario, bad[i].from);
		struct scenario *sc = new_scenario();
		int rc;

		cr_assert_not_null(at, "%s", bad[i].from);
		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - images_scenario),
			 images_scenario, bad[i].to, at + strlen(bad[i].from));
		rc = load_and_finish(sc, text);
		if (!bad[i].msg) {
			cr_assert_eq(rc, 0, "%s", serr.msg);
		} else {
			cr_assert_eq(rc, -EINVAL, "%s", text);
			cr_assert_str_eq(serr.msg, bad[i].msg);
		}
		free(sc);
	}
}
