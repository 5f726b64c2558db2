/*
 * ns3-bulk: the ns-3 half of `make bench` (tests/bench.sh).
 *
 * One bulk TCP flow over one full-duplex point-to-point link between two
 * nodes, for --duration simulated seconds from time 0: a BulkSendApplication
 * writes --send-size bytes at a time into a socket with --buf bytes of send
 * and receive buffer, a PacketSink reads.  The segment size is the MTU less
 * 52 bytes of IPv4, TCP and timestamp headers, as tcpsim's MSS; CUBIC, as
 * tcpsim's default; SACK and timestamps on, delayed ACK every 2 segments
 * (ns-3's defaults, and Linux's).  The link's queues are ns-3's defaults
 * (100 packets in the device, pfifo_fast's 1000 above it).
 *
 * It is the same wire work as the scenarios under bench/ ask of tcpsim: the goodput it
 * prints says whether the wire bound here too.  ns-3 models no host CPU.
 *
 * Prints key=value lines: bytes delivered to the sink, goodput, the number
 * of events ns-3 executed, simulated seconds.  Wall and CPU time are the
 * caller's to measure (of the whole process).
 *
 * Built by tests/bench.sh against Debian's ns-3 (package libns3-dev, 3.37):
 *   g++ -O2 ns3-bulk.cc $(pkg-config --cflags --libs ns3-core ns3-network
 *       ns3-internet ns3-point-to-point ns3-applications)
 */
#include <cstdint>
#include <cstdio>
#include <string>

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"

using namespace ns3;

int main(int argc, char *argv[])
{
	std::string rate = "10Gbps";
	std::string delay = "1us";
	uint32_t mtu = 1500;
	uint32_t buf = 4 * 1024 * 1024;
	uint32_t send_size = 65536;
	double duration_s = 1.0;

	CommandLine cmd(__FILE__);
	cmd.AddValue("rate", "line rate (ns-3 DataRate, e.g. 10Gbps)", rate);
	cmd.AddValue("delay", "one-way propagation delay (ns-3 Time, e.g. 1us)", delay);
	cmd.AddValue("mtu", "device MTU [bytes]", mtu);
	cmd.AddValue("buf", "socket send and receive buffer [bytes]", buf);
	cmd.AddValue("send-size", "bytes per write of the sender", send_size);
	cmd.AddValue("duration", "simulated seconds", duration_s);
	cmd.Parse(argc, argv);
	if (mtu < 68 || mtu > 65535 || buf < 2048 || send_size < 1 || !(duration_s > 0)) {
		std::fprintf(stderr, "ns3-bulk: --mtu must be 68..65535, --buf at least 2048, "
			     "--send-size at least 1, --duration above 0\n");
		return 2;
	}

	Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpCubic::GetTypeId()));
	Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(mtu - 52));
	Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buf));
	Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buf));
	Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
	Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
	Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));

	NodeContainer nodes;
	nodes.Create(2);
	PointToPointHelper p2p;
	p2p.SetDeviceAttribute("DataRate", StringValue(rate));
	p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
	p2p.SetChannelAttribute("Delay", StringValue(delay));
	NetDeviceContainer devs = p2p.Install(nodes);

	InternetStackHelper stack;
	stack.Install(nodes);
	Ipv4AddressHelper addr;
	addr.SetBase("10.0.0.0", "255.255.255.0");
	Ipv4InterfaceContainer ifs = addr.Assign(devs);

	const uint16_t port = 5001;
	PacketSinkHelper sink_helper("ns3::TcpSocketFactory",
				     InetSocketAddress(Ipv4Address::GetAny(), port));
	ApplicationContainer sink_app = sink_helper.Install(nodes.Get(1));
	sink_app.Start(Seconds(0));

	BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(ifs.GetAddress(1), port));
	src.SetAttribute("MaxBytes", UintegerValue(0));
	src.SetAttribute("SendSize", UintegerValue(send_size));
	ApplicationContainer src_app = src.Install(nodes.Get(0));
	src_app.Start(Seconds(0));

	Simulator::Stop(Seconds(duration_s));
	Simulator::Run();

	Ptr<PacketSink> sink = DynamicCast<PacketSink>(sink_app.Get(0));
	uint64_t bytes = sink->GetTotalRx();
	std::printf("bytes_delivered=%llu\n", (unsigned long long)bytes);
	std::printf("goodput_mbps=%.1f\n", (double)bytes * 8.0 / duration_s / 1e6);
	std::printf("events=%llu\n", (unsigned long long)Simulator::GetEventCount());
	std::printf("simulated_s=%.6f\n", Simulator::Now().GetSeconds());
	Simulator::Destroy();
	return 0;
}
