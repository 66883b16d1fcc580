# Enterprise: flow sizes of an enterprise datacenter, the enterprise workload of CONGA
# (M. Alizadeh et al., "CONGA: Distributed Congestion-Aware Load Balancing for Datacenters",
# ACM SIGCOMM 2014).
# Typed from the NUMFabric public release (K. Nagaraj et al., "NUMFabric: Fast and Flexible
# Bandwidth Allocation in Datacenters", ACM SIGCOMM 2016), as mirrored at
# github.com/jiaqing-phd/numfabric, file ENTERPRISE_CDF, commit
# c0c5326de47fec0f7982ab4d80b70b15f887c4f8. That file gives the cumulative fraction (0 to 1):
# it is multiplied by 100 here. Nothing else is changed.
# Provenance caveat: that file names no source. It is taken to be CONGA's workload because
# NUMFabric shares an author with CONGA and its other CDF (VL2_CDF) is identical to the
# one in datacenter/empirical-traffic-gen, the CONGA authors' traffic generator. No copy
# published by the CONGA authors themselves was found to check it against.
# Not used: the arrays "enterprise_size_conga"/"enterprise_prob_conga" found in
# HPCC-derived ns-3 simulators. They share 32 of these points and the same largest size, but
# their other points differ (their mean is about 216 KB, this file's about 157 KB).
# The first point has percent 1, not 0: the sampler treats the first point as a point mass
# (6% of flows are exactly 52 bytes here), as ns-3's EmpiricalRandomVariable does.
# Format: one point per line, SIZE_BYTES CUMULATIVE_PERCENT. Sizes and percents never
# decrease and the last percent is 100. Sizes between two points are linearly interpolated.
52 1
52 2
52 3
52 4
52 5
52 6
71 7
80 8
93 9
104 10
104 11
117 12
128 13
146 14
156 15
160 16
168 17
176 18
184 19
207 20
216 21
220 22
228 23
240 24
260 25
280 26
292 27
312 28
332 29
352 30
368 31
389 32
420 33
448 34
476 35
505 36
536 37
570 38
604 39
636 40
657 41
692 42
708 43
736 44
770 45
820 46
870 47
930 48
990 49
1052 50
1121 51
1200 52
1281 53
1341 54
1393 55
1472 56
1500 57
1540 58
1617 59
1700 60
1784 61
1904 62
2052 63
2160 64
2304 65
2486 66
2688 67
2921 68
3000 69
3163 70
3466 71
3740 72
4124 73
4500 74
4580 75
4952 76
5363 77
5889 78
6088 79
6646 80
7308 81
7800 82
8510 83
9188 84
10344 85
11561 86
13232 87
15370 88
18100 89
21668 90
26285 91
32536 92
41768 93
55796 94
76064 95
112036 96
189792 97
396120 98
1400260 99
1648840 99.1
1983192 99.2
2460724 99.3
3114668 99.4
4094912 99.5
5715047 99.6
8608848 99.7
14986480 99.8
31234416 99.9
34309484 99.91
38113744 99.92
43101196 99.93
48564256 99.94
55172740 99.95
64149296 99.96
76720988 99.97
98405552 99.98
144144096 99.99
153800296 99.991
163350688 99.992
174063680 99.993
184086600 99.994
199310416 99.995
224086072 99.996
249070260 99.997
308776352 99.998
413478960 99.999
425923560 99.9991
439754048 99.9992
440618308 99.9993
449947224 99.9994
471397620 99.9995
493632404 99.9996
561765744 99.9997
705574076 99.9998
771881716 99.9999
1773379248 100
