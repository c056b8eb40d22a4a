import { describe, expect, it } from 'vitest';
import { normalizeResponseType, responseTypeParts } from '../../protocol/response-type.ts';

describe('response_type values (OAuth 2.0 Multiple Response Types)', () => {
  it('spells a response type one way whatever the order of its parts (§5)', () => {
    expect(normalizeResponseType('token id_token code')).toBe('code id_token token');
    expect(normalizeResponseType(' id_token  token ')).toBe('id_token token');
    expect(normalizeResponseType('code')).toBe('code');
  });

  it('names what each response type returns (§3)', () => {
    expect(responseTypeParts('code')).toEqual({ code: true, token: false, idToken: false });
    expect(responseTypeParts('id_token token')).toEqual({ code: false, token: true, idToken: true });
    expect(responseTypeParts('code id_token')).toEqual({ code: true, token: false, idToken: true });
    expect(responseTypeParts('none')).toEqual({ code: false, token: false, idToken: false });
  });
});
