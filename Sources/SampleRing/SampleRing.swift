// The lock-free single-producer/single-consumer sample ring (issue 3).
