/*
 * netdev_table.c: the device registry, link.type to its path (netdev.h).
 * Kept apart from the paths so that the base device file names no plug-in.
 */
#include "netdev.h"

#include <stddef.h>

#include "netdev_nic.h"

const struct netdev_ops *netdev_for(const struct scenario *sc)
{
	switch (sc->link_type) {
	case LINK_LOOPBACK:
		return &netdev_loopback;
	case LINK_VETH:
		return &netdev_veth;
	case LINK_NIC:
		return &netdev_nic;
	}
	return NULL;
}
