// One step earning 2, then a deadlock (given a self-loop, which earns nothing):
// PRISM answers 2 for R=? [ C ] and for R=? [ C<=3 ] (PRISM issue #29).
dtmc

module m
  s : [0..1] init 0;
  [] s=0 -> (s'=1);
endmodule

rewards
  [] true : 2;
endrewards
