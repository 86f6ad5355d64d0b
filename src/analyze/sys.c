/* `sys`: runs the host probes and every area's report in order. */
#include "analyze/sys.h"
#include "analyze/sys_libraries.h"
#include "probe/environ.h"
#include "probe/ncclib.h"

#include <string.h>

void sys_ctx_probe(struct sys_ctx *c)
{
	memset(c, 0, sizeof(*c));
	int r = pci_scan(&c->pci);
	if (r < 0)
		c->pci_err = r;
	for (size_t i = 0; i < c->pci.n; i++)
		if (pci_is_nvidia_gpu(&c->pci.devs[i]))
			c->ngpus++;
	host_probe(&c->host);
	c->host.kubernetes = environ_get("KUBERNETES_SERVICE_HOST") != NULL;
	driver_probe(&c->drv);
	net_probe(&c->net);
	c->has_ib = c->net.nib > 0;
}

void sys_ctx_release(struct sys_ctx *c)
{
	pci_list_release(&c->pci);
	net_release(&c->net);
}

void sys_run(struct result *r, struct sys_ctx *c)
{
	sys_report_host(r, c);
	sys_report_driver(r, c);
	sys_report_pci(r, c);
	sys_report_fabric(r, c);
	sys_report_limits(r, c);
	struct ncclib_scan scan;
	ncclib_scan(&scan);
	sys_report_libraries(r, &scan);
	ncclib_scan_release(&scan);
	sys_report_env(r, c);
	sys_report_net(r, c);
}
