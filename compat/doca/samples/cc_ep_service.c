/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The comm-channel endpoint API, service side (DPU), as the vendor's
 * guide for that generation describes it: an endpoint on the device (-p)
 * and the host function's representor (-r) listens on a name; the program
 * sleeps in epoll on the endpoint's receive and service event channels,
 * re-arming them after each wake-up; each message is answered with -t
 * (when the send queue is full, it waits on the send channel, a second at
 * most); a peer that left is disconnected. A peer whose answer cannot be
 * sent (it reads nothing, or any other error of its own) is disconnected
 * too, and counts as gone: one peer never stops the service. It exits
 * after -n clients came and went.
 */

#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <doca_argp.h>
#include <doca_comm_channel.h>
#include <doca_dev.h>
#include <doca_log.h>

#include "samples_common.h"

DOCA_LOG_REGISTER(CC_EP_SERVICE);

#define SERVICE_NAME "doca_cc_ep_sample"
#define MSG_SIZE 4080

static int
wait_fd(int epfd, int fd_wanted, int timeout_ms)
{
	struct epoll_event ev[4];
	int n, i;

	n = epoll_wait(epfd, ev, 4, timeout_ms);
	for (i = 0; i < n; i++)
		if (ev[i].data.fd == fd_wanted)
			return 1;
	return n > 0 ? 0 : n;
}

/* Send, sleeping on the send channel while the queue (or this peer's
 * share of it) is full, 10 s at most: a peer that reads nothing for that
 * long holds up every other peer's answers. (Not less: a client that
 * sends a burst and then reads can be kept off its core for seconds on a
 * loaded machine, and that is no reason to drop it.) */
#define SEND_WAIT_S 10
static doca_error_t
send_all(struct doca_comm_channel_ep_t *ep, struct doca_comm_channel_addr_t *peer, const char *text,
	 int send_epfd, int send_fd)
{
	double deadline = sample_now() + SEND_WAIT_S;
	doca_error_t ret;

	for (;;) {
		ret = doca_comm_channel_ep_sendto(ep, text, strlen(text), DOCA_CC_MSG_FLAG_NONE, peer);
		if (ret != DOCA_ERROR_AGAIN || sample_now() > deadline)
			return ret;
		doca_comm_channel_ep_event_handle_arm_send(ep);
		wait_fd(send_epfd, send_fd, 100);
	}
}

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .text = "Message from the service", .count = 1 };
	struct doca_comm_channel_addr_t *peer, **peers;
	struct doca_comm_channel_ep_t *ep = NULL;
	doca_event_channel_t send_fd, recv_fd, svc_fd;
	struct doca_log_backend *sdk_log;
	struct doca_dev_rep *rep = NULL;
	struct doca_dev *dev = NULL;
	struct epoll_event ev = { .events = EPOLLIN };
	int epfd = -1, send_epfd = -1, left = 0, answered = 0, wakeups = 0;
	uint32_t nb_peers, pending;
	char msg[MSG_SIZE + 1];
	size_t len;
	double deadline;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	ret = doca_argp_init("doca_cc_ep_service", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(true, true);
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_start(argc, argv);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = sample_open_dev(cfg.pci, NULL, &dev);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = sample_open_rep(dev, cfg.rep_pci, &rep);
	if (ret != DOCA_SUCCESS)
		goto close_dev;

	ret = doca_comm_channel_ep_create(&ep);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_device(ep, dev);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_device_rep(ep, rep);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_max_msg_size(ep, MSG_SIZE);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_send_queue_size(ep, 16);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_recv_queue_size(ep, 16);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_listen(ep, SERVICE_NAME);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_get_event_channel(ep, &send_fd, &recv_fd);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_get_service_event_channel(ep, &svc_fd);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to set up the service: %s", doca_error_get_descr(ret));
		goto destroy;
	}
	epfd = epoll_create1(0);
	send_epfd = epoll_create1(0);
	ev.data.fd = recv_fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, recv_fd, &ev);
	ev.data.fd = svc_fd;
	epoll_ctl(epfd, EPOLL_CTL_ADD, svc_fd, &ev);
	ev.data.fd = send_fd;
	epoll_ctl(send_epfd, EPOLL_CTL_ADD, send_fd, &ev);
	printf("service: listening as \"%s\"\n", SERVICE_NAME);

	/* Arming the service channel: it fires when a client comes or goes. */
	doca_comm_channel_ep_update_service_state_info(ep);
	deadline = sample_now() + 120;
	while (left < cfg.count && sample_now() < deadline) {
		struct epoll_event evs[2];
		int n, i;

		/* Take everything there is, then arm and sleep. */
		for (;;) {
			len = MSG_SIZE;
			ret = doca_comm_channel_ep_recvfrom(ep, msg, &len, DOCA_CC_MSG_FLAG_NONE, &peer);
			if (ret == DOCA_ERROR_AGAIN)
				break;
			if (ret == DOCA_ERROR_CONNECTION_RESET) {
				printf("service: a client left\n");
				doca_comm_channel_ep_disconnect(ep, peer);
				left++;
				continue;
			}
			if (ret != DOCA_SUCCESS) {
				DOCA_LOG_ERR("recvfrom: %s", doca_error_get_descr(ret));
				goto destroy;
			}
			msg[len] = '\0';
			if (answered == 0) {
				uint64_t v;

				doca_comm_channel_peer_addr_get_user_data(peer, &v);
				printf("service: first message: \"%s\" (peer user data %lu)\n", msg, (unsigned long)v);
			}
			doca_comm_channel_peer_addr_set_user_data(peer, (uint64_t)answered + 1);
			ret = send_all(ep, peer, cfg.text, send_epfd, send_fd);
			if (ret == DOCA_SUCCESS || ret == DOCA_ERROR_CONNECTION_RESET) {
				answered++;
			} else {
				/* That peer's problem, not the service's: it goes
				 * (recvfrom reports a reset later otherwise). */
				DOCA_LOG_WARN("sendto: %s; disconnecting that client", doca_error_get_descr(ret));
				doca_comm_channel_ep_disconnect(ep, peer);
				left++;
			}
		}
		if (left >= cfg.count)
			break;
		doca_comm_channel_ep_event_handle_arm_recv(ep);
		n = epoll_wait(epfd, evs, 2, 1000);
		wakeups += n > 0;
		for (i = 0; i < n; i++) {
			if (evs[i].data.fd != svc_fd)
				continue;
			/* Re-arms the service channel too. */
			doca_comm_channel_ep_update_service_state_info(ep);
			doca_comm_channel_ep_get_peer_addr_list(ep, &peers, &nb_peers);
			doca_comm_channel_ep_get_pending_connections(ep, &pending);
			printf("service: state: %u connected, %u pending\n", nb_peers, pending);
		}
	}
	printf("service: answered %d messages from %d client(s), %d epoll wake-ups\n", answered, left, wakeups);
	ret = left >= cfg.count ? DOCA_SUCCESS : DOCA_ERROR_TIME_OUT;
destroy:
	if (epfd >= 0)
		close(epfd);
	if (send_epfd >= 0)
		close(send_epfd);
	doca_comm_channel_ep_destroy(ep);
	doca_dev_rep_close(rep);
close_dev:
	doca_dev_close(dev);
argp:
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
