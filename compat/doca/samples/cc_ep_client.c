/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 Comch on DPDK authors
 */

/*
 * The comm-channel endpoint API, client side (host): connect to the
 * service (-p), sleep in epoll on the send channel until the connection
 * is up, send -n messages (-t) and take the -n answers, sleeping on the
 * receive channel; then read the peer statistics (update_info and the
 * getters), check them, disconnect.
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

DOCA_LOG_REGISTER(CC_EP_CLIENT);

#define SERVICE_NAME "doca_cc_ep_sample"
#define MSG_SIZE 4080

int
main(int argc, char **argv)
{
	struct sample_cfg cfg = { .text = "Message from the client", .count = 1 };
	struct doca_comm_channel_addr_t *peer = NULL, *from;
	struct doca_comm_channel_ep_t *ep = NULL;
	doca_event_channel_t send_fd, recv_fd;
	struct doca_log_backend *sdk_log;
	struct doca_dev *dev = NULL;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int send_epfd = -1, recv_epfd = -1, sent = 0, received = 0, wakeups = 0;
	uint64_t s_msgs = 0, s_bytes = 0, r_msgs = 0, r_bytes = 0, in_flight = 0;
	char msg[MSG_SIZE + 1];
	double deadline;
	size_t len;
	doca_error_t ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	doca_log_backend_create_standard();
	doca_log_backend_create_with_file_sdk(stderr, &sdk_log);
	doca_log_backend_set_sdk_level(sdk_log, DOCA_LOG_LEVEL_WARNING);
	ret = doca_argp_init("doca_cc_ep_client", &cfg);
	if (ret == DOCA_SUCCESS)
		ret = sample_register_params(false, true);
	if (ret == DOCA_SUCCESS)
		ret = doca_argp_start(argc, argv);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = sample_open_dev(cfg.pci, NULL, &dev);
	if (ret != DOCA_SUCCESS)
		goto argp;
	ret = doca_comm_channel_ep_create(&ep);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_device(ep, dev);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_max_msg_size(ep, MSG_SIZE);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_send_queue_size(ep, 16);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_set_recv_queue_size(ep, 16);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_connect(ep, SERVICE_NAME, &peer);
	if (ret == DOCA_SUCCESS)
		ret = doca_comm_channel_ep_get_event_channel(ep, &send_fd, &recv_fd);
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("Failed to connect: %s", doca_error_get_descr(ret));
		goto destroy;
	}
	send_epfd = epoll_create1(0);
	recv_epfd = epoll_create1(0);
	ev.data.fd = send_fd;
	epoll_ctl(send_epfd, EPOLL_CTL_ADD, send_fd, &ev);
	ev.data.fd = recv_fd;
	epoll_ctl(recv_epfd, EPOLL_CTL_ADD, recv_fd, &ev);

	/* The connection is up when a send may go: sleep on the send channel. */
	deadline = sample_now() + 60;
	while ((ret = doca_comm_channel_peer_addr_update_info(peer)) == DOCA_ERROR_CONNECTION_INPROGRESS &&
	       sample_now() < deadline) {
		doca_comm_channel_ep_event_handle_arm_send(ep);
		wakeups += epoll_wait(send_epfd, &out, 1, 1000) > 0;
	}
	if (ret != DOCA_SUCCESS) {
		DOCA_LOG_ERR("The connection failed: %s", doca_error_get_descr(ret));
		goto destroy;
	}
	printf("client: connected\n");

	while ((sent < cfg.count || received < cfg.count) && sample_now() < deadline) {
		while (sent < cfg.count) {
			ret = doca_comm_channel_ep_sendto(ep, cfg.text, strlen(cfg.text), DOCA_CC_MSG_FLAG_NONE, peer);
			if (ret == DOCA_ERROR_AGAIN)
				break;
			if (ret != DOCA_SUCCESS) {
				DOCA_LOG_ERR("sendto: %s", doca_error_get_descr(ret));
				goto destroy;
			}
			sent++;
		}
		for (;;) {
			len = MSG_SIZE;
			ret = doca_comm_channel_ep_recvfrom(ep, msg, &len, DOCA_CC_MSG_FLAG_NONE, &from);
			if (ret == DOCA_ERROR_AGAIN)
				break;
			if (ret != DOCA_SUCCESS || from != peer) {
				DOCA_LOG_ERR("recvfrom: %s", doca_error_get_descr(ret));
				ret = ret != DOCA_SUCCESS ? ret : DOCA_ERROR_UNEXPECTED;
				goto destroy;
			}
			msg[len] = '\0';
			if (++received == cfg.count)
				printf("client: last answer: \"%s\"\n", msg);
		}
		if (received < cfg.count) {
			/* Sleep until an answer (or room to send) is there. */
			doca_comm_channel_ep_event_handle_arm_recv(ep);
			wakeups += epoll_wait(recv_epfd, &out, 1, sent < cfg.count ? 10 : 1000) > 0;
		}
	}
	ret = doca_comm_channel_peer_addr_update_info(peer);
	doca_comm_channel_peer_addr_get_send_messages(peer, &s_msgs);
	doca_comm_channel_peer_addr_get_send_bytes(peer, &s_bytes);
	doca_comm_channel_peer_addr_get_recv_messages(peer, &r_msgs);
	doca_comm_channel_peer_addr_get_recv_bytes(peer, &r_bytes);
	doca_comm_channel_peer_addr_get_send_in_flight_messages(peer, &in_flight);
	printf("client: %d sent, %d received; peer statistics: sent %lu (%lu bytes), received %lu (%lu bytes), in flight %lu; %d epoll wake-ups\n",
	       sent, received, (unsigned long)s_msgs, (unsigned long)s_bytes, (unsigned long)r_msgs,
	       (unsigned long)r_bytes, (unsigned long)in_flight, wakeups);
	if (ret == DOCA_SUCCESS && (sent != cfg.count || received != cfg.count || s_msgs != (uint64_t)cfg.count ||
				    r_msgs != (uint64_t)cfg.count ||
				    s_bytes != (uint64_t)cfg.count * strlen(cfg.text))) {
		DOCA_LOG_ERR("The statistics do not match what was sent and received");
		ret = DOCA_ERROR_UNEXPECTED;
	}
	doca_comm_channel_ep_disconnect(ep, peer);
destroy:
	if (send_epfd >= 0)
		close(send_epfd);
	if (recv_epfd >= 0)
		close(recv_epfd);
	doca_comm_channel_ep_destroy(ep);
	doca_dev_close(dev);
argp:
	doca_argp_destroy();
	return ret == DOCA_SUCCESS ? 0 : 1;
}
