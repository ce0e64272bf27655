/* SPDX-License-Identifier: MIT */
/*
 * tests/test_scenario_processes.c - who runs, as a scenario says it
 * (tools/lib/scenario/scenario.h): the processes list and its defaults,
 * PIDs assigned the same way every time, a group's process (named, System,
 * or one of its own), thread names, start and exit into the groups, the
 * identity flags following the sessions, the configuration surviving a
 * copy of the scenario, and ident_cfg_check()'s rules on their own.
 *
 * Expected values are typed from the scenario text of each test.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler_model/identity.h"
#include "tests/scenario_fixture.h"
#include "tools/lib/scenario/scenario.h"

TestSuite(scenario_processes, .timeout = 20.);

static struct scenario *load_finished(const char *text)
{
	struct scenario *sc = new_scenario();

	cr_assert_eq(scenario_load_string(sc, "t.yaml", text, &serr), 0, "load: %s", serr.msg);
	cr_assert_eq(scenario_finish(sc, &serr), 0, "finish: %s", serr.msg);
	return sc;
}

static struct ident_cfg *ident_of(const struct scenario *sc)
{
	struct ident_cfg *c = malloc(sizeof(*c));

	cr_assert_not_null(c);
	scenario_ident_cfg(sc, c);
	return c;
}

/* the index in ident.processes of the process with image @image, -1 if none */
static int process_index(const struct ident_cfg *c, const char *image)
{
	for (unsigned i = 0; i < c->nprocesses; i++) {
		if (c->processes[i].image && !strcmp(c->processes[i].image, image)) {
			return (int)i;
		}
	}
	return -1;
}

Test(scenario_processes, the_default_desktop_names_its_processes)
{
	struct scenario *sc = load_finished("");
	struct ident_cfg *c = ident_of(sc);
	int edge = process_index(c, "msedge.exe");
	int explorer = process_index(c, "explorer.exe");
	int svchost = process_index(c, "svchost.exe");
	int services = process_index(c, "services.exe");

	cr_assert(c->proc_thread, "the NT Kernel Logger records PROC_THREAD");
	cr_assert(!c->dispatcher && !c->profile);
	cr_assert(c->sysconfig);
	cr_assert(c->ptr64, "x64");
	cr_assert_eq(c->profile_interval, 10000, "1 ms");
	cr_assert_eq(c->memory_mb, 16384);
	cr_assert_str_eq(c->computer_name, "ETWFORGE");
	cr_assert_str_eq(c->processes[0].image, "Idle");
	cr_assert_eq(c->processes[0].pid, 0);
	cr_assert_str_eq(c->processes[1].image, "System");
	cr_assert_eq(c->processes[1].pid, 4);
	cr_assert(edge > 1 && explorer > 1 && svchost > 1 && services > 1);
	cr_assert_eq(c->processes[edge].ppid, c->processes[explorer].pid);
	cr_assert_eq(c->processes[svchost].ppid, c->processes[services].pid,
		     "no parent given: services.exe");
	cr_assert_eq(c->processes[explorer].session, 1);
	cr_assert_eq(c->processes[services].session, 0);
	/* every group runs in one of them, none in its own; System's waiting
	 * threads (machine.background) in System */
	cr_assert_eq(c->nprocesses, 2 + sc->nprocesses);
	for (unsigned g = 0; g < sc->sched.ngroups; g++) {
		if (strcmp(sc->sched.groups[g].name, "System (background)")) {
			cr_assert_gt(c->group_process[g], 1, "group %u", g);
		} else {
			cr_assert_eq(c->group_process[g], IDENT_SYSTEM);
		}
	}
	cr_assert_eq(ident_cfg_check(c, sc->sched.ngroups, NULL), 0);
	free(c);
	free(sc);
}

Test(scenario_processes, item_defaults)
{
	struct scenario *sc = load_finished("processes: [{name: tool.exe}]\n"
					    "threads: [{name: t, process: tool.exe}]\n");
	struct ident_cfg *c = ident_of(sc);
	const struct ident_process *p = &c->processes[2];

	cr_assert_eq(c->nprocesses, 3);
	cr_assert_str_eq(p->image, "tool.exe");
	cr_assert_eq(p->pid, 1000, "the first assigned PID");
	cr_assert_eq(p->ppid, 4, "no services.exe: System");
	cr_assert_eq(p->session, 1);
	cr_assert_str_eq(p->sid, "S-1-5-18");
	cr_assert_null(p->cmdline);
	cr_assert_eq(p->start_ns, 0);
	cr_assert_eq(p->exit_ns, IDENT_NO_EXIT);
	cr_assert_eq(p->exit_status, 0);
	cr_assert_null(c->thread_name[0]);
	free(c);
	free(sc);
}

Test(scenario_processes, assigned_pids_skip_the_given_ones_and_repeat)
{
	static const char text[] = "processes:\n"
				   "  - {name: a.exe}\n"
				   "  - {name: b.exe, pid: 1020}\n"
				   "  - {name: c.exe}\n"
				   "threads: [{name: x, process: a.exe}, {name: y}]\n";
	struct scenario *one = load_finished(text);
	struct scenario *two = load_finished(text);

	/* 1000, (1020 taken), 1040; y's own process next */
	cr_assert_eq(one->ident.processes[2].pid, 1000);
	cr_assert_eq(one->ident.processes[3].pid, 1020);
	cr_assert_eq(one->ident.processes[4].pid, 1040);
	cr_assert_eq(one->ident.processes[5].pid, 1060);
	cr_assert_eq(memcmp(&one->ident, &two->ident, sizeof(one->ident)), 0);
	/* finishing again changes nothing */
	cr_assert_eq(scenario_finish(one, &serr), 0, "%s", serr.msg);
	cr_assert_eq(memcmp(&one->ident, &two->ident, sizeof(one->ident)), 0);
	free(one);
	free(two);
}

Test(scenario_processes, a_group_without_process_gets_its_own)
{
	struct scenario *sc = load_finished("processes:\n"
					    "  - {name: services.exe, pid: 700, session: 0}\n"
					    "threads:\n"
					    "  - {name: render, count: 2}\n"
					    "  - {name: kernel_work, process: System}\n");
	struct ident_cfg *c = ident_of(sc);
	int own = process_index(c, "render.exe");

	cr_assert_eq(own, 3);
	cr_assert_eq(c->group_process[0], 3);
	cr_assert_eq(c->group_process[1], IDENT_SYSTEM);
	cr_assert_eq(c->processes[own].ppid, 700, "services.exe is the default parent");
	cr_assert_eq(c->processes[own].session, 1);
	cr_assert_eq(c->processes[2].ppid, 4, "services.exe itself: System");
	free(c);
	free(sc);
}

Test(scenario_processes, a_scenario_without_processes_still_loads)
{
	struct scenario *sc = load_finished("processes: []\n"
					    "threads:\n"
					    "  - {name: a}\n"
					    "  - {name: b}\n");
	struct ident_cfg *c = ident_of(sc);

	cr_assert_eq(c->nprocesses, 4);
	cr_assert_str_eq(c->processes[2].image, "a.exe");
	cr_assert_str_eq(c->processes[3].image, "b.exe");
	cr_assert_eq(c->processes[2].pid, 1000);
	cr_assert_eq(c->processes[3].pid, 1020);
	free(c);
	free(sc);
}

Test(scenario_processes, replacing_the_processes_frees_the_built_in_groups)
{
	struct scenario *sc = load_finished("processes: [{name: other.exe}]\n");
	struct ident_cfg *c = ident_of(sc);

	/* Idle, System, other.exe, then one process per built-in group */
	cr_assert_eq(c->nprocesses, 3 + sc->sched.ngroups);
	for (unsigned g = 0; g < sc->sched.ngroups; g++) {
		cr_assert_eq(c->group_process[g], 3 + g, "group %u", g);
	}
	free(c);
	free(sc);
}

Test(scenario_processes, thread_names_and_several_groups_in_one_process)
{
	struct scenario *sc =
		load_finished("processes:\n"
			      "  - {name: msedge.exe}\n"
			      "  - {name: renderer, image: msedge.exe, parent: msedge.exe}\n"
			      "threads:\n"
			      "  - {name: main, process: renderer, thread_name: CrRendererMain}\n"
			      "  - {name: pool, process: renderer,\n"
			      "     thread_name: \"ThreadPoolForegroundWorker {n}\"}\n"
			      "  - {name: browser, process: msedge.exe}\n");
	struct ident_cfg *c = ident_of(sc);

	cr_assert_eq(c->group_process[0], 3);
	cr_assert_eq(c->group_process[1], 3);
	cr_assert_eq(c->group_process[2], 2);
	cr_assert_str_eq(c->processes[3].image, "msedge.exe", "the image, not the name");
	cr_assert_eq(c->processes[3].ppid, c->processes[2].pid);
	cr_assert_str_eq(c->thread_name[0], "CrRendererMain");
	cr_assert_str_eq(c->thread_name[1], "ThreadPoolForegroundWorker {n}");
	cr_assert_null(c->thread_name[2]);
	free(c);
	free(sc);
}

Test(scenario_processes, start_and_exit_reach_the_groups)
{
	struct scenario *sc = load_finished("processes:\n"
					    "  - {name: late.exe, start: 500ms, exit: 1500ms}\n"
					    "  - {name: brief.exe, start: 200ms, lifetime: 50ms}\n"
					    "threads:\n"
					    "  - {name: a, process: late.exe}\n"
					    "  - {name: b, process: brief.exe}\n"
					    "  - {name: c}\n");

	cr_assert_eq(sc->sched.groups[0].start_ns, 500000000ull);
	cr_assert_eq(sc->sched.groups[0].exit_ns, 1500000000ull);
	cr_assert_eq(sc->sched.groups[1].start_ns, 200000000ull);
	cr_assert_eq(sc->sched.groups[1].exit_ns, 250000000ull, "start + lifetime");
	cr_assert_eq(sc->sched.groups[2].start_ns, 0);
	cr_assert_eq(sc->sched.groups[2].exit_ns, 0, "no exit");
	free(sc);
}

Test(scenario_processes, a_set_lifetime_replaces_the_file_exit)
{
	struct scenario *sc = new_scenario();

	cr_assert_eq(scenario_load_string(sc, "t.yaml",
					  "processes: [{name: a.exe, start: 1s, exit: 3s}]\n",
					  &serr),
		     0, "%s", serr.msg);
	cr_assert_eq(scenario_set(sc, "processes.0.lifetime=500ms", &serr), 0, "%s", serr.msg);
	cr_assert_eq(scenario_finish(sc, &serr), 0, "%s", serr.msg);
	cr_assert_eq(sc->ident.processes[2].exit_ns, 1500000000ull);
	cr_assert_eq(scenario_set(sc, "processes.0.exit=none", &serr), 0, "%s", serr.msg);
	cr_assert_eq(scenario_finish(sc, &serr), 0, "%s", serr.msg);
	cr_assert_eq(sc->ident.processes[2].exit_ns, IDENT_NO_EXIT);
	free(sc);
}

Test(scenario_processes, identity_flags_follow_sessions_target_and_arch)
{
	struct scenario *sc = load_finished("machine: {target: win10-1709, arch: x86}\n"
					    "sessions:\n"
					    "  - {name: A, flags: [cswitch, dispatcher]}\n"
					    "  - {name: B, flags: [profile]}\n"
					    "sysconfig: false\n");

	cr_assert(!sc->ident.proc_thread);
	cr_assert(sc->ident.dispatcher);
	cr_assert(sc->ident.profile);
	cr_assert(!sc->ident.sysconfig);
	cr_assert(!sc->ident.ptr64);
	cr_assert_eq(sc->ident.names_in_thread_records, false, "1709 writes v3 without names");
	free(sc);
	sc = load_finished("machine: {target: win10-1903}\n");
	cr_assert_eq(sc->ident.names_in_thread_records, true, "18362 writes the name");
	free(sc);
}

Test(scenario_processes, the_configuration_survives_a_copy)
{
	struct scenario *sc =
		load_finished("processes: [{name: a.exe, cmdline: \"a -x\"}]\n"
			      "threads: [{name: t, process: a.exe, thread_name: T}]\n");
	struct scenario *copy = malloc(sizeof(*copy));
	struct ident_cfg *c;

	cr_assert_not_null(copy);
	memcpy(copy, sc, sizeof(*sc));
	memset(sc, 0xA5, sizeof(*sc)); /* the original is gone */
	free(sc);
	c = ident_of(copy);
	cr_assert_str_eq(c->processes[2].image, "a.exe");
	cr_assert_str_eq(c->processes[2].cmdline, "a -x");
	cr_assert_str_eq(c->thread_name[0], "T");
	cr_assert(c->processes[2].image >= (const char *)copy &&
		  c->processes[2].image < (const char *)(copy + 1));
	free(c);
	free(copy);
}

Test(scenario_processes, printing_keeps_every_process_key)
{
	struct scenario *sc =
		load_finished("processes:\n"
			      "  - {name: a.exe, parent: 600, session: none, user: none,\n"
			      "     start: 1s, lifetime: 250ms, exit_status: -1073741819}\n"
			      "threads: [{name: t, process: a.exe, thread_name: \"w {n}\"}]\n"
			      "profile_interval: 122100ns\n");
	struct scenario *back = new_scenario();
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	scenario_print(f, sc);
	cr_assert_eq(fclose(f), 0);
	cr_assert(strstr(text, "    pid: 1000\n"), "%s", text);
	cr_assert(strstr(text, "    parent: 600\n"));
	cr_assert(strstr(text, "    session: none\n"));
	cr_assert(strstr(text, "    user: none\n"));
	cr_assert(strstr(text, "    exit: 1250ms\n"), "lifetime printed as exit");
	cr_assert(strstr(text, "    exit_status: 0xC0000005\n"));
	cr_assert(strstr(text, "    process: \"a.exe\"\n    thread_name: \"w {n}\"\n"));
	cr_assert(strstr(text, "\nprofile_interval: 122100ns\n"));
	cr_assert(strstr(text, "\nsysconfig: true\n"));
	cr_assert(strstr(text, "  computer_name: \"ETWFORGE\"\n"));
	cr_assert_eq(scenario_load_string(back, "printed.yaml", text, &serr), 0, "%s\n%s", serr.msg,
		     text);
	cr_assert_eq(scenario_finish(back, &serr), 0, "%s", serr.msg);
	cr_assert_eq(memcmp(&back->ident, &sc->ident, sizeof(sc->ident)), 0);
	cr_assert_eq(memcmp(back->sched.groups, sc->sched.groups, sizeof(sc->sched.groups)), 0);
	free(text);
	free(back);
	free(sc);
}

Test(scenario_processes, at_most_128_processes_with_the_groups_own)
{
	struct scenario *sc = new_scenario();
	size_t cap = 16384;
	char *text = malloc(cap);
	size_t n;

	cr_assert_not_null(text);
	n = (size_t)snprintf(text, cap, "processes:\n");
	for (int i = 0; i < 128; i++) {
		n += (size_t)snprintf(text + n, cap - n, "  - {name: p%d.exe}\n", i);
	}
	snprintf(text + n, cap - n, "threads: [{name: a, process: p0.exe}, {name: b}]\n");
	cr_assert_eq(scenario_load_string(sc, "many.yaml", text, &serr), 0, "%s", serr.msg);
	cr_assert_eq(scenario_finish(sc, &serr), -EINVAL);
	cr_assert(strstr(serr.msg, "many.yaml:130:39: threads.1: one process too many"), "%s",
		  serr.msg);
	free(text);
	free(sc);
}

/* ident_cfg_check() on configurations no scenario can produce */
Test(scenario_processes, ident_cfg_check_rules)
{
	struct ident_cfg *c = malloc(sizeof(*c));
	const char *why = NULL;

	cr_assert_not_null(c);
	ident_cfg_defaults(c);
	cr_assert_eq(ident_cfg_check(c, 1, &why), 0, "%s", why);
	cr_assert(!c->proc_thread && !c->dispatcher && !c->profile, "nothing on");
	cr_assert_eq(c->group_process[0], IDENT_SYSTEM);
	c->nprocesses = 3;
	c->processes[2] =
		(struct ident_process){.image = "a.exe", .pid = 8, .exit_ns = IDENT_NO_EXIT};
	cr_assert_eq(ident_cfg_check(c, 1, &why), 0, "%s", why);

	c->processes[2].pid = 10;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	cr_assert_str_eq(why, "a PID must be a multiple of 4");
	c->processes[2].pid = 4096;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->processes[2].pid = 4;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->processes[2].pid = 8;
	c->processes[2].image = "expl\xc3\xb6rer.exe";
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->processes[2].image = "";
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->processes[2].image = "a.exe";
	c->processes[2].start_ns = 5;
	c->processes[2].exit_ns = 5;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	cr_assert_str_eq(why, "a process must exit after it starts");
	c->processes[2].exit_ns = IDENT_NO_EXIT;
	c->profile_interval = IDENT_PROFILE_MIN_100NS - 1;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->profile_interval = IDENT_PROFILE_MAX_100NS + 1;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->profile_interval = IDENT_PROFILE_MAX_100NS;
	c->group_process[0] = 3;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->group_process[0] = IDENT_IDLE;
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	c->group_process[0] = 2;
	c->nprocesses = 4;
	c->processes[3] = c->processes[2];
	cr_assert_eq(ident_cfg_check(c, 1, &why), -EINVAL);
	cr_assert_str_eq(why, "two processes have the same PID");
	free(c);
}

static const char hot_scenario[] =
	"processes:\n"
	"  - name: game.exe\n"
	"threads:\n"
	"  - name: render\n"
	"    process: game.exe\n"
	"    count: 2\n"
	"    behaviour: cpu_bound\n"
	"    hot: {game.exe!fn_1190: 70, ntdll.dll!RtlAllocateHeap: 20,\n"
	"          ntoskrnl.exe!MmAccessFault: 10}\n";

Test(scenario_processes, hot_functions_are_found_in_the_process_and_the_kernel)
{
	struct scenario *sc = load_finished(hot_scenario);
	const struct mod_cfg *m = &sc->modules;
	char buf[24];
	static const char *const want[] = {"fn_1190", "RtlAllocateHeap", "MmAccessFault"};

	cr_assert_eq(m->hot_n[0], 3);
	for (unsigned k = 0; k < 3; k++) {
		const struct mod_function *f = &m->functions[m->hot[m->hot_first[0] + k].fn];

		cr_assert_str_eq(mod_function_name(f, buf, sizeof(buf)), want[k]);
	}
	cr_assert_eq(m->hot[m->hot_first[0]].weight, 70);
	cr_assert(m->images[m->functions[m->hot[m->hot_first[0] + 2].fn].image].kernel);
	free(sc);
}

Test(scenario_processes, a_hot_function_not_in_its_image_is_one_located_line)
{
	static const struct {
		const char *from, *to, *msg;
	} bad[] = {
		{"game.exe!fn_1190", "game.exe!fn_1191",
		 "t.yaml:8:11: threads.0.hot.game.exe!fn_1191: no function \"fn_1191\" in game.exe "
		 "(did you mean \"fn_1190\"?)"},
		{"ntdll.dll!", "ntdl.dll!",
		 "t.yaml:8:33: threads.0.hot.ntdl.dll!RtlAllocateHeap: no image \"ntdl.dll\" in "
		 "the "
		 "group's process or the kernel (did you mean \"ntdll.dll\"?)"},
		{"game.exe!fn_1190", "game.exe",
		 "t.yaml:8:11: threads.0.hot: \"game.exe\" is not "
		 "image!function (as ntdll.dll!RtlAllocateHeap, at "
		 "most 127 bytes)"},
		{": 70", ": 0",
		 "t.yaml:8:29: threads.0.hot.game.exe!fn_1190: 0 is out of range "
		 "(1..1000000)"},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char text[1024];
		const char *at = strstr(hot_scenario, bad[i].from);
		struct scenario *sc = new_scenario();
		int rc;

		snprintf(text, sizeof(text), "%.*s%s%s", (int)(at - hot_scenario), hot_scenario,
			 bad[i].to, at + strlen(bad[i].from));
		rc = load_and_finish(sc, text);
		cr_assert_eq(rc, -EINVAL, "%s", text);
		cr_assert_str_eq(serr.msg, bad[i].msg);
		free(sc);
	}
}

Test(scenario_processes, hot_prints_and_loads_back)
{
	struct scenario *sc = load_finished(hot_scenario);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct scenario *again;

	cr_assert_not_null(f);
	scenario_print(f, sc);
	fclose(f);
	cr_assert_not_null(
		strstr(text, "hot: {\"game.exe!fn_1190\": 70, \"ntdll.dll!RtlAllocateHeap\": 20, "
			     "\"ntoskrnl.exe!MmAccessFault\": 10}"),
		"%s", text);
	again = load_finished(text);
	cr_assert_eq(memcmp(&again->modules.hot, &sc->modules.hot, sizeof(sc->modules.hot)), 0);
	free(again);
	free(sc);
	free(text);
}
