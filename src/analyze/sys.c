/* `sys`: every area's report in order, over the machine model. */
#include "analyze/sys.h"
#include "analyze/sys_libraries.h"

#include <string.h>

void sys_ctx_init(struct sys_ctx *c, const struct machine *m)
{
	memset(c, 0, sizeof(*c));
	c->m = m;
	c->pci = &m->pci;
	c->pci_err = m->pci_err;
	c->ngpus = m->ngpus;
	c->host = &m->host;
	c->drv = &m->drv;
	c->net = &m->net;
	c->has_ib = m->net.nib > 0;
}

void sys_run(struct result *r, struct sys_ctx *c)
{
	sys_report_host(r, c);
	sys_report_driver(r, c);
	sys_report_pci(r, c);
	sys_report_fabric(r, c);
	sys_report_limits(r, c);
	sys_report_libraries(r, &c->m->libs);
	sys_report_env(r, c);
	sys_report_net(r, c);
}
