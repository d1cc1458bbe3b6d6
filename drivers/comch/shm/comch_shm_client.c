/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * comch_shm: clients, the host's side of a session. A client connects to
 * its function's socket, sends HELLO with its mailbox and waits for the
 * DPU's ACCEPT (the DPU's mailbox) or REJECT; once accepted, its
 * connection lives as a server's does (comch_shm_session.c). Everything
 * here runs on the lcore that polls the client.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_string_fns.h>

#include "comch_shm_priv.h"

int
shm_client_create(struct rte_comch_dev *cdev, struct rte_comch_client *cli)
{
	struct shm_client *sh;
	int ret;

	sh = calloc(1, sizeof(*sh));
	if (sh == NULL)
		return -ENOMEM;
	sh->sock = -1;
	cli->drv = sh;
	ret = shm_event_client_create(cdev->process_private, cli);
	if (ret < 0) {
		free(sh);
		cli->drv = NULL;
	}
	return ret;
}

void
shm_client_abort(struct rte_comch_dev *cdev __rte_unused,
		struct rte_comch_client *cli)
{
	struct shm_client *sh = cli->drv;

	if (sh->sock >= 0)
		shm_sock_close(sh->sock, true);
	sh->sock = -1;
	if (sh->mailbox != NULL)
		munmap(sh->mailbox, sh->rx.mailbox_size);
	sh->mailbox = NULL;
	sh->pending_err = 0;
}

void
shm_client_destroy(struct rte_comch_dev *cdev, struct rte_comch_client *cli)
{
	shm_client_abort(cdev, cli);
	shm_event_client_destroy(cli);
	free(cli->drv);
	cli->drv = NULL;
}

int
shm_client_start(struct rte_comch_dev *cdev, struct rte_comch_client *cli)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_client *sh = cli->drv;
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char why[SHM_REASON_MAX + PATH_MAX];
	struct shm_msg msg;
	int fd, ret;

	shm_client_abort(cdev, cli);
	shm_ring_geom_init(&sh->rx, cli->recv_queue_len, cli->max_msg_size);
	ret = shm_memfd_create("comch-client", sh->rx.mailbox_size,
			cdev->data->numa_node, &fd, &sh->mailbox);
	if (ret < 0) {
		SHM_LOG(ERR, "%s: cannot create a mailbox: %s",
			cdev->data->dev_name, strerror(-ret));
		sh->mailbox = NULL;
		return ret;
	}
	sh->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (sh->sock < 0) {
		ret = -errno;
		close(fd);
		shm_client_abort(cdev, cli);
		return ret;
	}
	sh->next_check = 0;
	/* HELLO carries our mailbox: only to a DPU of this user, through a
	 * folder nobody else can change (absent: no DPU yet). */
	ret = shm_dir_check(sd->cfg.path, why, sizeof(why));
	if (ret == 0)
		ret = shm_sock_file_check(sd->functions[0].sock_path, true, why,
				sizeof(why));
	if (ret < 0 && ret != -ENOENT) {
		SHM_LOG(ERR, "%s: will not connect: %s", cdev->data->dev_name,
			why);
		close(fd);
		shm_client_abort(cdev, cli);
		return -EPERM;
	}
	rte_strscpy(sa.sun_path, sd->functions[0].sock_path, sizeof(sa.sun_path));
	if (ret == -ENOENT ||
	    connect(sh->sock, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		SHM_LOG(DEBUG, "%s: no DPU serves function %s at %s (%s)",
			cdev->data->dev_name, sd->functions[0].name,
			sd->functions[0].sock_path,
			strerror(ret == -ENOENT ? ENOENT : errno));
		sh->pending_err = -ECONNREFUSED;
		close(fd);
		return 0;
	}
	shm_msg_init(&msg, SHM_MSG_HELLO);
	rte_strscpy(msg.hello.server_name, cli->server_name,
			sizeof(msg.hello.server_name));
	msg.hello.max_msg_size = cli->max_msg_size;
	msg.hello.recv_queue_len = sh->rx.depth;
	msg.hello.mailbox_size = sh->rx.mailbox_size;
	msg.hello.flags = (cli->conf_flags & RTE_COMCH_F_EVENT) ?
		SHM_F_EVENT : 0;
	ret = shm_msg_send(sh->sock, &msg, fd);
	close(fd);
	/* A DPU that refuses a client as it connects (too many handshakes
	 * at once, out of fds) says why and closes: a send after that fails,
	 * and the reason is read all the same (a close with nothing queued
	 * reads as the DPU closing the link). */
	if (ret < 0 && ret != -EPIPE && ret != -ECONNRESET)
		sh->pending_err = -ECONNREFUSED;
	return 0;
}

static void
shm_client_fail(struct rte_comch_dev *cdev, struct rte_comch_client *cli,
		int err)
{
	shm_client_abort(cdev, cli);
	rte_comch_pmd_client_failed(cli, err);
}

static void
shm_client_accepted(struct rte_comch_dev *cdev, struct rte_comch_client *cli,
		const struct shm_msg_accept *a, int fd)
{
	struct shm_client *sh = cli->drv;
	struct rte_comch_conn *conn;
	struct shm_ring_geom tx;
	struct shm_conn *sc;
	void *remote;
	char why[SHM_REASON_MAX];

	if (a->recv_queue_len == 0 ||
	    a->recv_queue_len > SHM_MAX_RECV_QUEUE_LEN ||
	    a->max_consumers == 0 || a->max_consumers > RTE_COMCH_MAX_FP_OBJECTS ||
	    a->max_map == 0 || (a->flags & ~SHM_F_EVENT) != 0) {
		SHM_LOG(ERR, "%s: malformed ACCEPT from the DPU",
			cdev->data->dev_name);
		close(fd);
		shm_client_fail(cdev, cli, -EPROTO);
		return;
	}
	shm_ring_geom_init(&tx, a->recv_queue_len, cli->max_msg_size);
	if (shm_map_sealed(fd, tx.mailbox_size, &remote, why, sizeof(why)) < 0) {
		SHM_LOG(ERR, "%s: bad mailbox from the DPU: %s",
			cdev->data->dev_name, why);
		close(fd);
		shm_client_fail(cdev, cli, -EPROTO);
		return;
	}
	close(fd);
	conn = rte_comch_pmd_conn_alloc(cdev, NULL, cli, cli->max_msg_size,
			sizeof(*sc));
	if (conn == NULL) {
		munmap(remote, tx.mailbox_size);
		shm_client_fail(cdev, cli, -ENOMEM);
		return;
	}
	sc = conn->drv;
	if (shm_conn_init(cdev->process_private, sc, conn, sh->sock, &sh->rx,
			sh->mailbox, &tx, remote) < 0) {
		rte_comch_pmd_conn_free(conn);
		munmap(remote, tx.mailbox_size);
		shm_client_fail(cdev, cli, -ENOMEM);
		return;
	}
	sc->max_own_consumers = a->max_consumers;
	sc->max_own_map = a->max_map;
	/* The DPU is not limited by us (beyond the protocol's bounds). */
	sc->max_peer_consumers = RTE_COMCH_MAX_FP_OBJECTS;
	sc->max_peer_map = UINT64_MAX;
	sc->peer_events = (a->flags & SHM_F_EVENT) != 0;
	sh->sock = -1;       /* owned by the connection now */
	sh->mailbox = NULL;
	/* Event mode: EVENT after our HELLO (a failure loses the connection
	 * at the next poll). */
	if (shm_event_conn_open(cdev->process_private, sc) < 0)
		shm_conn_fail_local(sc, -ENOMEM, "cannot create event fds");
	rte_comch_pmd_client_connected(cli, conn);
}


static int
shm_client_poll_handshake(struct rte_comch_dev *cdev,
		struct rte_comch_client *cli)
{
	struct shm_client *sh = cli->drv;
	int fds[SHM_MSG_FDS_MAX];
	struct shm_msg msg;
	int ret, nfds, err;

	if (sh->pending_err != 0) {
		shm_client_fail(cdev, cli, sh->pending_err);
		return 1;
	}
	ret = shm_msg_recv(sh->sock, &msg, fds, &nfds);
	if (ret == -EAGAIN)
		return 0;
	if (ret < 0) {
		SHM_LOG(ERR, "%s: handshake with the DPU failed: %s",
			cdev->data->dev_name, ret == -EPROTO ?
			"malformed message" : "DPU closed the link");
		shm_client_fail(cdev, cli, ret);
		return 1;
	}
	if (msg.type == SHM_MSG_ACCEPT && nfds == 1) {
		shm_client_accepted(cdev, cli, &msg.accept, fds[0]);
		return 1;
	}
	while (nfds > 0)
		close(fds[--nfds]);
	switch (msg.type) {
	case SHM_MSG_REJECT:
		err = msg.reject.err;
		if (err <= 0 || err > 4095)
			err = EPROTO;
		shm_sanitize(msg.reject.reason, sizeof(msg.reject.reason));
		/* no such server yet, or too many handshakes at once:
		 * retried by the application */
		SHM_LOG_AT(err == ENOENT || err == EAGAIN ? RTE_LOG_DEBUG :
			RTE_LOG_ERR,
			"%s: server \"%s\" refused the connection: %s",
			cdev->data->dev_name, cli->server_name,
			msg.reject.reason);
		shm_client_fail(cdev, cli, -err);
		return 1;
	default:
		SHM_LOG(ERR, "%s: unexpected message %u during the handshake",
			cdev->data->dev_name, msg.type);
		shm_client_fail(cdev, cli, -EPROTO);
		return 1;
	}
}

int
shm_client_poll(struct rte_comch_dev *cdev, struct rte_comch_client *cli)
{
	struct shm_dev *sd = cdev->process_private;
	struct shm_client *sh = cli->drv;
	struct shm_conn *sc;
	uint64_t now;

	if (cli->state == RTE_COMCH_STATE_STARTING)
		return shm_client_poll_handshake(cdev, cli);
	if (cli->conn == NULL)
		return 0;
	sc = cli->conn->drv;
	if (sc->lost_reported)
		return 0;
	if (sc->broken)
		return shm_conn_report(sc, sc->broken, false);
	now = rte_get_tsc_cycles();
	if (now < sh->next_check)
		return 0;
	sh->next_check = now + sd->sock_check_cycles;
	shm_view_reap_tick(sc->view, now);
	shm_conn_flush(sc, false);
	return shm_conn_sock_event(sc);
}
