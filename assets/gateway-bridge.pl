# Runs inside agent containers (mounted read-only) when the image has perl (every Debian/Ubuntu image
# does: perl-base is essential): listens on the container's loopback and relays each connection to the
# model gateway's unix socket, the container's only way out. The same job as gateway-bridge.cjs, but
# perl starts in milliseconds where Node.js takes ~200 ms, and the agent waits for the bridge.
# Usage: perl gateway-bridge.pl <port> <socket path> <ready file>
use strict;
use warnings;
use IO::Select;
use IO::Socket::INET;
use IO::Socket::UNIX;
use Socket qw(SOCK_STREAM);

my ($port, $socket_path, $ready_file) = @ARGV;
my $server = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $port, Listen => 64, ReuseAddr => 1)
  or die "invariant gateway bridge: cannot listen on 127.0.0.1:$port: $!\n";
open(my $ready, ">", $ready_file) or die "invariant gateway bridge: cannot write $ready_file: $!\n";
print $ready "ready";
close($ready);
$SIG{CHLD} = "IGNORE";

while (1) {
  my $client = $server->accept() or next;
  my $pid = fork();
  if (!defined $pid || $pid) {
    close($client);
    next;
  }
  close($server);
  my $upstream = IO::Socket::UNIX->new(Type => SOCK_STREAM, Peer => $socket_path) or exit(1);
  my $select = IO::Select->new($client, $upstream);
  my $buffer;
  PUMP: while (my @readable = $select->can_read()) {
    for my $from (@readable) {
      my $to = $from == $client ? $upstream : $client;
      my $read = sysread($from, $buffer, 65536);
      if (!$read) {
        # end of one direction: pass the half-close on; stop when both directions have ended
        shutdown($to, 1);
        $select->remove($from);
        last PUMP if $select->count() == 0;
        next;
      }
      my $offset = 0;
      while ($offset < $read) {
        my $written = syswrite($to, $buffer, $read - $offset, $offset);
        last PUMP unless defined $written;
        $offset += $written;
      }
    }
  }
  exit(0);
}
