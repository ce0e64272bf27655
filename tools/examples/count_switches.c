// SPDX-License-Identifier: MIT
/*
 * tools/examples/count_switches.c - open an ETL file with libetwforge and
 * count its context switches per CPU and per record form (plain 0x0524
 * events as "cswitch"). Build against an installed library:
 *   cc count_switches.c $(pkg-config --cflags --libs etwforge) -o count_switches
 */
#include <etwforge/etwforge.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	static unsigned long long per_cpu[2048], per_form[5];
	static const char *const forms[5] = {"idle_short", "idle", "lite", "full", "cswitch"};
	struct etwforge_error *err = etwforge_error_new();
	const struct etwforge_event *ev;
	struct etwforge_file *f = etwforge_file_open(argc > 1 ? argv[1] : "-", 0, err);
	struct etwforge_iter *it =
		f ? etwforge_iter_new(f, ETWFORGE_ORDER_TIME, ETWFORGE_EV_SWITCHES, err) : NULL;
	int rc = 0;

	while (it && (rc = etwforge_iter_next(it, &ev, err)) > 0) {
		per_cpu[ev->cpu & 2047]++;
		per_form[ev->kind == ETWFORGE_EV_COMPACT ? ev->u.compact.form_code : 4]++;
	}
	if (!it || rc < 0) {
		fprintf(stderr, "count_switches: %s\n", etwforge_error_message(err));
		etwforge_iter_free(it);
		etwforge_file_close(f);
		etwforge_error_free(err);
		return 1;
	}
	for (unsigned c = 0; c < 2048; c++) {
		if (per_cpu[c]) {
			printf("cpu %u %llu\n", c, per_cpu[c]);
		}
	}
	for (unsigned k = 0; k < 5; k++) {
		printf("%s %llu\n", forms[k], per_form[k]);
	}
	etwforge_iter_free(it);
	etwforge_file_close(f);
	etwforge_error_free(err);
	return 0;
}
