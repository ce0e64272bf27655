// SPDX-License-Identifier: MIT
/*
 * tools/lib/scenario/scenario_background.c - the processes a Windows
 * machine has whatever it is used for (machine.background): the session
 * manager, the client/server runtime, the logon and service processes,
 * service hosts, the desktop shell, and System's worker threads, each with
 * the threads a real one has, nearly all of them waiting. Added to a
 * lived-in scenario's own processes when scenario_finish() runs; a process
 * the scenario names already (by name) keeps the scenario's description and
 * only gains the waiting threads. The lists follow a Windows 10 desktop
 * (34 processes and 662 threads at the start of the PerfView sample file)
 * and a Windows Server's own (what a server runs before its applications).
 */
#include <stdio.h>
#include <string.h>

#include "scheduler_model/sim_rng.h"
#include "tools/lib/scenario/scenario_background.h"
#include "tools/lib/scenario/schema.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define SYSTEM_SID    "S-1-5-18"
#define LOCAL_SVC     "S-1-5-19"
#define NETWORK_SVC   "S-1-5-20"
#define USER_SID      "" /* the machine's interactive user: drawn from the seed */
#define NO_SESSION    SCENARIO_NO_SESSION
#define BG_WAIT_NS    2500000000ull /* a background thread waits 2.5 s on average */
#define BG_BURST_NS   30000u	    /* and runs 30 us */
#define BG_GROUP_NAME " (background)"

/* One process of the list: who it is, and how many threads it has and at what priority. */
struct bg_proc {
	const char *name;  /* its name in the scenario ("System": System's threads) */
	const char *image; /* NULL: the name */
	const char *parent;
	int32_t session;
	const char *user;
	const char *cmdline;
	unsigned threads;
	int8_t priority;
};

/* clang-format off */
static const struct bg_proc desktop[] = {
	{"System", NULL, NULL, NO_SESSION, SYSTEM_SID, NULL, 140, 13},
	{"Registry", NULL, "System", NO_SESSION, SYSTEM_SID, NULL, 4, 8},
	{"smss.exe", NULL, "System", NO_SESSION, SYSTEM_SID, "\\SystemRoot\\System32\\smss.exe", 2, 11},
	{"csrss.exe", NULL, "smss.exe", 0, SYSTEM_SID, "%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows SharedSection=1024,20480,768 Windows=On SubSystemType=Windows ServerDll=basesrv,1 ServerDll=winsrv:UserServerDllInitialization,3 ServerDll=sxssrv,4 ProfileControl=Off MaxRequestThreads=16", 11, 13},
	{"wininit.exe", NULL, "smss.exe", 0, SYSTEM_SID, "wininit.exe", 3, 13},
	{"csrss-1", "csrss.exe", "smss.exe", 1, SYSTEM_SID, "%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows SharedSection=1024,20480,768 Windows=On SubSystemType=Windows ServerDll=basesrv,1 ServerDll=winsrv:UserServerDllInitialization,3 ServerDll=sxssrv,4 ProfileControl=Off MaxRequestThreads=16", 13, 13},
	{"winlogon.exe", NULL, "smss.exe", 1, SYSTEM_SID, "winlogon.exe", 5, 13},
	{"services.exe", NULL, "wininit.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\services.exe", 8, 9},
	{"lsass.exe", NULL, "wininit.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\lsass.exe", 10, 9},
	{"fontdrvhost.exe", NULL, "wininit.exe", 0, "S-1-5-96-0-0", "\"fontdrvhost.exe\"", 5, 8},
	{"svchost-dcomlaunch", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\svchost.exe -k DcomLaunch -p", 14, 8},
	{"svchost-rpcss", "svchost.exe", "services.exe", 0, NETWORK_SVC, "C:\\Windows\\system32\\svchost.exe -k RPCSS -p", 12, 8},
	{"dwm.exe", NULL, "winlogon.exe", 1, "S-1-5-90-0-1", "\"dwm.exe\"", 15, 14},
	{"svchost-localservice", "svchost.exe", "services.exe", 0, LOCAL_SVC, "C:\\Windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted -p", 18, 8},
	{"svchost-netsvcs", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\svchost.exe -k netsvcs -p", 40, 8},
	{"svchost-networkservice", "svchost.exe", "services.exe", 0, NETWORK_SVC, "C:\\Windows\\System32\\svchost.exe -k NetworkService -p", 14, 8},
	{"svchost-localsystem", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\System32\\svchost.exe -k LocalSystemNetworkRestricted -p", 20, 8},
	{"spoolsv.exe", NULL, "services.exe", 0, SYSTEM_SID, "C:\\Windows\\System32\\spoolsv.exe", 12, 8},
	{"MsMpEng.exe", NULL, "services.exe", 0, SYSTEM_SID, "\"C:\\ProgramData\\Microsoft\\Windows Defender\\platform\\4.18.2009.7-0\\MsMpEng.exe\"", 38, 8},
	{"svchost-appx", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\svchost.exe -k appmodel -p", 6, 8},
	{"svchost-unistack", "svchost.exe", "services.exe", 1, USER_SID, "C:\\Windows\\system32\\svchost.exe -k UnistackSvcGroup", 8, 8},
	{"sihost.exe", NULL, "svchost-netsvcs", 1, USER_SID, "sihost.exe", 12, 8},
	{"svchost-wpn", "svchost.exe", "services.exe", 1, USER_SID, "C:\\Windows\\system32\\svchost.exe -k UnistackSvcGroup -s WpnUserService", 10, 8},
	{"taskhostw.exe", NULL, "svchost-netsvcs", 1, USER_SID, "taskhostw.exe {222A245B-E637-4AE9-A93F-A59CA119A75E}", 9, 8},
	{"explorer.exe", NULL, NULL, 1, USER_SID, "C:\\Windows\\Explorer.EXE", 70, 8},
	{"ctfmon.exe", NULL, "svchost-localsystem", 1, USER_SID, "\"ctfmon.exe\"", 9, 13},
	{"StartMenuExperienceHost.exe", NULL, "svchost-dcomlaunch", 1, USER_SID, "\"C:\\Windows\\SystemApps\\Microsoft.Windows.StartMenuExperienceHost_cw5n1h2txyewy\\StartMenuExperienceHost.exe\" -ServerName:App.AppXywbrabmsek0gm3tkwpr5kwzbs55tkqay.mca", 20, 8},
	{"RuntimeBroker.exe", NULL, "svchost-dcomlaunch", 1, USER_SID, "C:\\Windows\\System32\\RuntimeBroker.exe -Embedding", 6, 8},
	{"SearchUI.exe", NULL, "svchost-dcomlaunch", 1, USER_SID, "\"C:\\Windows\\SystemApps\\Microsoft.Windows.Cortana_cw5n1h2txyewy\\SearchUI.exe\" -ServerName:CortanaUI.AppXa50dqqa5gqv4a428c9y1jjw7m3btvepj.mca", 35, 8},
	{"ShellExperienceHost.exe", NULL, "svchost-dcomlaunch", 1, USER_SID, "\"C:\\Windows\\SystemApps\\ShellExperienceHost_cw5n1h2txyewy\\ShellExperienceHost.exe\" -ServerName:App.AppXtk181tbxbce2qsex02s8tw7hfxa9xb3t.mca", 28, 8},
	{"SecurityHealthService.exe", NULL, "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\SecurityHealthService.exe", 7, 8},
	{"TextInputHost.exe", NULL, "svchost-dcomlaunch", 1, USER_SID, "\"C:\\Windows\\SystemApps\\MicrosoftWindows.Client.CBS_cw5n1h2txyewy\\TextInputHost.exe\" -ServerName:InputApp.AppXjd5de1g66v206tj52m9d0dtpppx4cgpn.mca", 12, 8},
	{"SgrmBroker.exe", NULL, "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\SgrmBroker.exe", 5, 8},
	{"WmiPrvSE.exe", NULL, "svchost-dcomlaunch", 0, NETWORK_SVC, "C:\\Windows\\system32\\wbem\\wmiprvse.exe -secured -Embedding", 9, 8},
	{"dllhost.exe", NULL, "svchost-dcomlaunch", 1, USER_SID, "C:\\Windows\\system32\\DllHost.exe /Processid:{AB8902B4-09CA-4BB6-B78D-A8F59079A8D5}", 6, 8},
	{"conhost.exe", NULL, "explorer.exe", 1, USER_SID, "\\??\\C:\\Windows\\system32\\conhost.exe 0x4", 4, 8},
};

static const struct bg_proc server[] = {
	{"System", NULL, NULL, NO_SESSION, SYSTEM_SID, NULL, 220, 13},
	{"Registry", NULL, "System", NO_SESSION, SYSTEM_SID, NULL, 4, 8},
	{"smss.exe", NULL, "System", NO_SESSION, SYSTEM_SID, "\\SystemRoot\\System32\\smss.exe", 2, 11},
	{"csrss.exe", NULL, "smss.exe", 0, SYSTEM_SID, "%SystemRoot%\\system32\\csrss.exe ObjectDirectory=\\Windows SharedSection=1024,20480,768 Windows=On SubSystemType=Windows ServerDll=basesrv,1 ServerDll=winsrv:UserServerDllInitialization,3 ServerDll=sxssrv,4 ProfileControl=Off MaxRequestThreads=16", 12, 13},
	{"wininit.exe", NULL, "smss.exe", 0, SYSTEM_SID, "wininit.exe", 3, 13},
	{"services.exe", NULL, "wininit.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\services.exe", 9, 9},
	{"lsass.exe", NULL, "wininit.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\lsass.exe", 14, 9},
	{"svchost-dcomlaunch", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\svchost.exe -k DcomLaunch -p", 14, 8},
	{"svchost-rpcss", "svchost.exe", "services.exe", 0, NETWORK_SVC, "C:\\Windows\\system32\\svchost.exe -k RPCSS -p", 14, 8},
	{"svchost-localservice", "svchost.exe", "services.exe", 0, LOCAL_SVC, "C:\\Windows\\system32\\svchost.exe -k LocalServiceNetworkRestricted -p", 16, 8},
	{"svchost-netsvcs", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\svchost.exe -k netsvcs -p", 45, 8},
	{"svchost-networkservice", "svchost.exe", "services.exe", 0, NETWORK_SVC, "C:\\Windows\\System32\\svchost.exe -k NetworkService -p", 16, 8},
	{"svchost-localsystem", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\System32\\svchost.exe -k LocalSystemNetworkRestricted -p", 18, 8},
	{"svchost-iissvcs", "svchost.exe", "services.exe", 0, SYSTEM_SID, "C:\\Windows\\system32\\svchost.exe -k iissvcs", 12, 8},
	{"MsMpEng.exe", NULL, "services.exe", 0, SYSTEM_SID, "\"C:\\ProgramData\\Microsoft\\Windows Defender\\platform\\4.18.2009.7-0\\MsMpEng.exe\"", 40, 8},
	{"WmiPrvSE.exe", NULL, "svchost-dcomlaunch", 0, NETWORK_SVC, "C:\\Windows\\system32\\wbem\\wmiprvse.exe -secured -Embedding", 10, 8},
	{"vmtoolsd.exe", NULL, "services.exe", 0, SYSTEM_SID, "\"C:\\Program Files\\VMware\\VMware Tools\\vmtoolsd.exe\"", 10, 8},
	{"dllhost.exe", NULL, "svchost-dcomlaunch", 0, SYSTEM_SID, "C:\\Windows\\system32\\DllHost.exe /Processid:{02D4B3F1-FD88-11D1-960D-00805FC79235}", 12, 8},
	{"conhost.exe", NULL, "services.exe", 0, SYSTEM_SID, "\\??\\C:\\Windows\\system32\\conhost.exe 0x4", 4, 8},
};
/* clang-format on */

static int process_named(const struct scenario_bg *sc, const char *name)
{
	for (unsigned i = 0; i < *sc->nprocesses; i++) {
		if (!strcmp(sc->processes[i].name, name)) {
			return (int)i;
		}
	}
	return -1;
}

static bool group_named(const struct scenario_bg *sc, const char *name)
{
	for (unsigned i = 0; i < sc->sched->ngroups; i++) {
		if (!strcmp(sc->sched->groups[i].name, name)) {
			return true;
		}
	}
	return false;
}

static bool pid_taken(const struct scenario_bg *sc, uint32_t pid)
{
	for (unsigned i = 0; i < *sc->nprocesses; i++) {
		if (sc->processes[i].pid == pid) {
			return true;
		}
	}
	return pid == 0 || pid == 4;
}

/* A process of the list into the scenario's, its PID any free one below 4096. */
static void add_process(const struct scenario_bg *sc, const struct bg_proc *b, struct sim_rng *r,
			uint32_t *pid, const char *user)
{
	struct scenario_process *p = &sc->processes[(*sc->nprocesses)++];

	do {
		*pid = 4u * (16u + (uint32_t)sim_rng_below(r, 1008)); /* 64..4092 */
	} while (pid_taken(sc, *pid));
	scenario_process_init(p);
	sk_copy_str(p->name, sizeof(p->name), b->name);
	sk_copy_str(p->image, sizeof(p->image), b->image ? b->image : "");
	p->pid = *pid;
	if (b->parent && (!strcmp(b->parent, "System") || process_named(sc, b->parent) >= 0)) {
		p->parent_by = SCENARIO_PARENT_NAME;
		sk_copy_str(p->parent, sizeof(p->parent), b->parent);
	} else {
		/* started by a process that has exited (explorer.exe: userinit.exe) */
		p->parent_by = SCENARIO_PARENT_PID;
		p->parent_pid = *pid - 4u * (1u + (uint32_t)sim_rng_below(r, 8));
	}
	p->session = b->session;
	sk_copy_str(p->user, sizeof(p->user), b->user[0] ? b->user : user);
	sk_copy_str(p->cmdline, sizeof(p->cmdline), b->cmdline ? b->cmdline : "");
}

/* The waiting threads of @b's process as a group of their own. */
static void add_group(const struct scenario_bg *sc, const struct bg_proc *b, const char *gname)
{
	unsigned i = sc->sched->ngroups++;
	struct sched_group *g = &sc->sched->groups[i];

	memset(g, 0, sizeof(*g));
	memset(&sc->group_x[i], 0, sizeof(sc->group_x[i]));
	sk_copy_str(g->name, sizeof(g->name), gname);
	g->count = b->threads;
	g->base_priority = b->priority;
	g->behaviour = SCHED_IO_BOUND;
	g->period_ns = BG_BURST_NS;
	g->wait_ns = BG_WAIT_NS;
	g->duty_pct = 20;
	g->user_wait_pct = strcmp(b->name, "System") ? 60 : 0;
	/* mostly waiting on queues and events (WrQueue, UserRequest, Executive) */
	g->wait_weights[SCHED_WR_WR_QUEUE] = 4;
	g->wait_weights[SCHED_WR_USER_REQUEST] = 3;
	g->wait_weights[SCHED_WR_EXECUTIVE] = 2;
	g->wait_weights[SCHED_WR_DELAY_EXECUTION] = 1;
	sk_copy_str(sc->group_x[i].process, sizeof(sc->group_x[i].process), b->name);
}

int scenario_background_add(const struct scenario_bg *sc)
{
	bool srv = sc->kind == SCENARIO_BACKGROUND_SERVER;
	const struct bg_proc *list = srv ? server : desktop;
	size_t n = srv ? ARRAY_SIZE(server) : ARRAY_SIZE(desktop);
	struct sim_rng r;
	uint32_t pid = 64;
	char user[64], gname[sizeof(sc->sched->groups[0].name)];
	unsigned sa1, sa2, sa3; /* the SID's sub-authorities */
	int added = 0;

	if (sc->kind == SCENARIO_BACKGROUND_NONE) {
		return 0;
	}
	sim_rng_init(&r, sc->seed, SIM_RNG_IDENT, 3);
	/*
	 * One draw a statement: as arguments of one call their order was the
	 * compiler's (gcc's last first, clang's first first). This is gcc's order,
	 * so files gcc wrote before stay as they were.
	 */
	sa3 = (unsigned)(100000000u + sim_rng_below(&r, 900000000u));
	sa2 = (unsigned)(1000000000u + sim_rng_below(&r, 3000000000u));
	sa1 = (unsigned)(1000000000u + sim_rng_below(&r, 3000000000u));
	snprintf(user, sizeof(user), "S-1-5-21-%u-%u-%u-1001", sa1, sa2, sa3);
	for (size_t k = 0; k < n; k++) {
		const struct bg_proc *b = &list[k];

		snprintf(gname, sizeof(gname), "%s%s", b->name, BG_GROUP_NAME);
		if (group_named(sc, gname)) {
			continue; /* printed and read back: there already */
		}
		if (strcmp(b->name, "System") && process_named(sc, b->name) < 0) {
			if (*sc->nprocesses >= SCENARIO_MAX_PROCESSES) {
				continue;
			}
			add_process(sc, b, &r, &pid, user);
		}
		if (sc->sched->ngroups < SCHED_MAX_GROUPS) {
			add_group(sc, b, gname);
			added++;
		}
	}
	return added;
}
