// SPDX-License-Identifier: MIT
/*
 * tools/lib/fit/fit_names.c - names out of a fitted scenario: the trace's
 * own made printable, or pseudonyms in the order first met, the names
 * every Windows installation has kept (fit_names.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tools/lib/common/grow.h"
#include "tools/lib/fit/fit_names.h"

/*
 * What a stock Windows 10 or 11 machine runs and maps, whoever uses it:
 * naming them tells nothing about the machine. Kept in this spelling.
 */
static const char *const well_known[] = {
	/* clang-format off */
	/* processes */
	"System", "Idle", "Registry", "MemCompression", "smss.exe", "csrss.exe", "wininit.exe",
	"winlogon.exe", "services.exe", "lsass.exe", "svchost.exe", "fontdrvhost.exe", "dwm.exe",
	"spoolsv.exe", "MsMpEng.exe", "NisSrv.exe", "sihost.exe", "taskhostw.exe", "explorer.exe",
	"ctfmon.exe", "RuntimeBroker.exe", "SearchIndexer.exe", "SearchHost.exe",
	"SearchApp.exe", "StartMenuExperienceHost.exe", "ShellExperienceHost.exe",
	"TextInputHost.exe", "SecurityHealthService.exe", "SgrmBroker.exe", "WmiPrvSE.exe",
	"dllhost.exe", "conhost.exe", "audiodg.exe", "LogonUI.exe", "userinit.exe",
	"WUDFHost.exe", "dasHost.exe", "taskmgr.exe", "cmd.exe", "powershell.exe",
	"SearchProtocolHost.exe", "SearchFilterHost.exe", "backgroundTaskHost.exe",
	"ApplicationFrameHost.exe", "SystemSettings.exe", "TiWorker.exe", "TrustedInstaller.exe",
	"wermgr.exe", "WerFault.exe", "msiexec.exe", "rundll32.exe", "regsvr32.exe",
	"xperf.exe", "wpr.exe", "PerfView.exe", "tracelog.exe", "logman.exe",
	/* kernel modules */
	"ntoskrnl.exe", "ntkrnlmp.exe", "ntkrnlpa.exe", "hal.dll", "kd.dll", "mcupdate_GenuineIntel.dll",
	"mcupdate_AuthenticAMD.dll", "CLFS.SYS", "tm.sys", "PSHED.dll", "BOOTVID.dll",
	"FLTMGR.SYS", "msrpc.sys", "ksecdd.sys", "clipsp.sys", "cmimcext.sys", "werkernel.sys",
	"ntosext.sys", "CI.dll", "cng.sys", "Wdf01000.sys", "WDFLDR.SYS", "acpi.sys", "WMILIB.SYS",
	"msisadrv.sys", "pci.sys", "partmgr.sys", "volmgr.sys", "volmgrx.sys", "mountmgr.sys",
	"storport.sys", "stornvme.sys", "storahci.sys", "disk.sys", "CLASSPNP.SYS", "Ntfs.sys",
	"fvevol.sys", "volsnap.sys", "rdyboost.sys", "Fs_Rec.sys", "ndis.sys", "NETIO.SYS",
	"tcpip.sys", "fwpkclnt.sys", "afd.sys", "http.sys", "mup.sys", "ksecpkg.sys",
	"Wof.sys", "WdFilter.sys", "FileInfo.sys", "Null.SYS", "Beep.SYS", "dxgkrnl.sys",
	"dxgmms2.sys", "watchdog.sys", "win32k.sys", "win32kbase.sys", "win32kfull.sys",
	"cdd.dll", "usbxhci.sys", "USBPORT.SYS", "HIDCLASS.SYS", "kbdclass.sys", "mouclass.sys",
	"vmbus.sys", "storvsc.sys", "netvsc.sys", "intelppm.sys", "amdppm.sys", "peauth.sys",
	"srv2.sys", "srvnet.sys", "mrxsmb.sys", "rdbss.sys", "npfs.sys", "msfs.sys", "tdx.sys",
	"netbt.sys", "afunix.sys", "bam.sys", "ahcache.sys", "luafv.sys", "wcifs.sys",
	"cldflt.sys", "bindflt.sys", "condrv.sys", "nvlddmkm.sys", "igdkmd64.sys",
	/* user-mode system DLLs */
	"ntdll.dll", "kernel32.dll", "kernelbase.dll", "KernelBase.dll", "msvcrt.dll",
	"ucrtbase.dll", "sechost.dll", "rpcrt4.dll", "advapi32.dll", "combase.dll", "user32.dll",
	"win32u.dll", "gdi32.dll", "gdi32full.dll", "msvcp_win.dll", "shell32.dll",
	"shlwapi.dll", "SHCore.dll", "ole32.dll", "oleaut32.dll", "imm32.dll", "bcrypt.dll",
	"bcryptprimitives.dll", "crypt32.dll", "cryptbase.dll", "ws2_32.dll", "mswsock.dll",
	"nsi.dll", "IPHLPAPI.DLL", "dnsapi.dll", "winhttp.dll", "wininet.dll", "urlmon.dll",
	"iertutil.dll", "uxtheme.dll", "dwmapi.dll", "d3d11.dll", "dxgi.dll", "d3d12.dll",
	"dcomp.dll", "windows.storage.dll", "wintypes.dll", "powrprof.dll", "profapi.dll",
	"kernel.appcore.dll", "cfgmgr32.dll", "setupapi.dll", "version.dll", "userenv.dll",
	"sspicli.dll", "clbcatq.dll", "msctf.dll", "TextInputFramework.dll", "CoreMessaging.dll",
	"CoreUIComponents.dll", "mscoree.dll", "mscoreei.dll", "clr.dll", "clrjit.dll",
	"coreclr.dll", "mscorlib.ni.dll", "System.ni.dll", "vcruntime140.dll", "msvcp140.dll",
	"wow64.dll", "wow64win.dll", "wow64cpu.dll", "apphelp.dll", "umpdc.dll",
	/* clang-format on */
};

const char *fit_well_known(const char *s)
{
	for (size_t i = 0; i < sizeof(well_known) / sizeof(well_known[0]); i++) {
		if (!strcasecmp(s, well_known[i])) {
			return well_known[i];
		}
	}
	return NULL;
}

void fit_ascii(const char *s, char *out, size_t cap)
{
	size_t n = 0;

	if (!cap) {
		return;
	}
	for (; s && *s && n + 1 < cap; s++) {
		unsigned char c = (unsigned char)*s;

		out[n++] = c >= 0x20 && c < 0x7F ? (char)c : '_';
	}
	out[n] = '\0';
}

void fit_names_init(struct fit_names *nm, enum fit_anon mode)
{
	memset(nm, 0, sizeof(*nm));
	nm->mode = mode;
}

void fit_names_finish(struct fit_names *nm)
{
	for (unsigned k = 0; k < FIT_NAME_KINDS; k++) {
		for (size_t i = 0; i < nm->map[k].n; i++) {
			free(nm->map[k].p[i].from);
			free(nm->map[k].p[i].to);
		}
		free(nm->map[k].p);
	}
	memset(nm, 0, sizeof(*nm));
}

/* ".dll" of "foo.dll" when it is a plain short extension (letters), else "". */
static const char *extension(const char *s)
{
	const char *dot = strrchr(s, '.');
	size_t n;

	if (!dot || dot == s) {
		return "";
	}
	n = strlen(dot + 1);
	if (n == 0 || n > 3) {
		return "";
	}
	for (const char *p = dot + 1; *p; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) {
			return "";
		}
	}
	return dot;
}

int fit_name(struct fit_names *nm, enum fit_name_kind k, const char *s, char *out, size_t cap)
{
	static const char *const stem[FIT_NAME_KINDS] = {"proc", "mod", "thread"};
	struct fit_name_map *m = &nm->map[k];
	const char *known;
	char pseudo[40], ext[5] = "";
	struct fit_pseudonym *p;

	if (nm->mode == FIT_ANON_NONE) {
		fit_ascii(s, out, cap);
		return 0;
	}
	if (nm->mode == FIT_ANON_NAMES && k != FIT_NAME_THREAD && (known = fit_well_known(s))) {
		snprintf(out, cap, "%s", known);
		return 0;
	}
	for (size_t i = 0; i < m->n; i++) {
		if (!strcasecmp(m->p[i].from, s)) {
			snprintf(out, cap, "%s", m->p[i].to);
			return 0;
		}
	}
	if (k == FIT_NAME_PROCESS) {
		snprintf(ext, sizeof(ext), ".exe");
	} else if (k == FIT_NAME_IMAGE) {
		/* the extension says what the module is; only the usual ones pass */
		const char *e = extension(s);

		if (!strcasecmp(e, ".dll") || !strcasecmp(e, ".sys") || !strcasecmp(e, ".exe") ||
		    !strcasecmp(e, ".drv")) {
			snprintf(ext, sizeof(ext), ".%c%c%c", e[1] | 0x20, e[2] | 0x20,
				 e[3] | 0x20);
		} else {
			snprintf(ext, sizeof(ext), ".dll");
		}
	}
	snprintf(pseudo, sizeof(pseudo), "%s%zu%s", stem[k], m->n + 1, ext);
	p = grow_room(m->p, &m->cap, m->n, sizeof(*p), 16);
	if (!p) {
		return -ENOMEM;
	}
	m->p = p;
	p[m->n].from = strdup(s);
	p[m->n].to = strdup(pseudo);
	if (!p[m->n].from || !p[m->n].to) {
		free(p[m->n].from);
		free(p[m->n].to);
		return -ENOMEM;
	}
	m->n++;
	snprintf(out, cap, "%s", pseudo);
	return 0;
}
