import { describe, expect, it } from 'vitest';
import { COUNTRY_CODES, CURRENCY_CODES, isJurisdictionCode, minorUnits } from '../../src/domain/codes.ts';

// Contract Appendix A, verbatim.
const APPENDIX_A: Record<number, string> = {
  0: 'BIF, CLP, DJF, GNF, ISK, JPY, KMF, KRW, PYG, RWF, UGX, UYI, VND, VUV, XAF, XOF, XPF',
  2: 'AED, AFN, ALL, AMD, ANG, AOA, ARS, AUD, AWG, AZN, BAM, BBD, BDT, BGN, BMD, BND, BOB, BOV, BRL, BSD, BTN, BWP, BYN, BZD, CAD, CDF, CHE, CHF, CHW, CNY, COP, COU, CRC, CUC, CUP, CVE, CZK, DKK, DOP, DZD, EGP, ERN, ETB, EUR, FJD, FKP, GBP, GEL, GHS, GIP, GMD, GTQ, GYD, HKD, HNL, HTG, HUF, IDR, ILS, INR, IRR, JMD, KES, KGS, KHR, KPW, KYD, KZT, LAK, LBP, LKR, LRD, LSL, MAD, MDL, MGA, MKD, MMK, MNT, MOP, MRU, MUR, MVR, MWK, MXN, MXV, MYR, MZN, NAD, NGN, NIO, NOK, NPR, NZD, PAB, PEN, PGK, PHP, PKR, PLN, QAR, RON, RSD, RUB, SAR, SBD, SCR, SDG, SEK, SGD, SHP, SLE, SLL, SOS, SRD, SSP, STN, SVC, SYP, SZL, THB, TJS, TMT, TOP, TRY, TTD, TWD, TZS, UAH, USD, USN, UYU, UZS, VED, VES, WST, XCD, XCG, YER, ZAR, ZMW, ZWG',
  3: 'BHD, IQD, JOD, KWD, LYD, OMR, TND',
  4: 'CLF, UYW',
};

// Contract Appendix B, verbatim (249 codes).
const APPENDIX_B =
  `AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ
CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR
GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP
KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT
MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW
SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG
UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW`.split(/\s+/);

describe('code lists match the contract appendices', () => {
  it('accepts exactly the 168 currencies of Appendix A with their exponents', () => {
    const expected = new Map<string, number>();
    for (const [digits, list] of Object.entries(APPENDIX_A))
      for (const c of list.split(', ')) expected.set(c, Number(digits));
    expect(expected.size).toBe(168);
    expect([...CURRENCY_CODES].sort()).toEqual([...expected.keys()].sort());
    for (const [code, digits] of expected) expect(minorUnits(code), code).toBe(digits);
  });

  it('accepts exactly the 249 countries of Appendix B', () => {
    expect(APPENDIX_B).toHaveLength(249);
    expect([...COUNTRY_CODES].sort()).toEqual([...APPENDIX_B].sort());
  });

  it('checks only the country part of a jurisdiction code', () => {
    for (const ok of ['US', 'US-DE', 'CA-ON', 'GB-SCT', 'DE-1'])
      expect(isJurisdictionCode(ok), ok).toBe(true);
    for (const bad of ['UK', 'XK-01', 'us', 'US-', 'US-ABCD', 'US_DE', 'EU'])
      expect(isJurisdictionCode(bad), bad).toBe(false);
  });
});
