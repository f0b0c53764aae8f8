import {
  REMEMBER_DEVICE_MS,
  SESSION_DURATION_MS,
  institutionalUseSchema,
  type InstitutionalUse,
} from '@kinetrace/contracts';
import { useSyncExternalStore } from 'react';

/** §3 auth state; everything but the in-memory flags is mirrored in local storage under these keys. */
const storageKeys = {
  token: 'auth_token',
  validTill: 'valid_till',
  verified: 'verified',
  username: 'user_name',
  userId: 'user_id',
  institutionalUse: 'institutional_use',
  profilePicture: 'profile_picture',
  rememberDeviceAt: 'remember_device_timestamp',
  rememberedDeviceToken: 'remembered_device_token',
} as const;

export interface AuthState {
  token: string | null;
  verified: boolean;
  username: string | null;
  userId: number | null;
  institutionalUse: InstitutionalUse | null;
  profilePicture: string | null;
  /** Epoch ms after which the login is over (§4.1: 12 hours, restarted on each route change). */
  validTill: number | null;
  /** Epoch ms of the verification that remembered this device, with the token the server gave for it. */
  rememberDeviceAt: number | null;
  rememberedDeviceToken: string | null;
  /** In memory: the user asked on Login to remember this device; sent with the code on Verify. */
  rememberDevice: boolean;
  /** In memory: the login already e-mailed a code, so entering Verify must not ask for another. */
  otpChallengeSent: boolean;
}

function readNumber(key: string): number | null {
  const value = localStorage.getItem(key);
  return value === null || Number.isNaN(Number(value)) ? null : Number(value);
}

function readStoredState(): AuthState {
  const use = institutionalUseSchema.safeParse(localStorage.getItem(storageKeys.institutionalUse));
  return {
    token: localStorage.getItem(storageKeys.token),
    verified: localStorage.getItem(storageKeys.verified) === 'true',
    username: localStorage.getItem(storageKeys.username),
    userId: readNumber(storageKeys.userId),
    institutionalUse: use.success ? use.data : null,
    profilePicture: localStorage.getItem(storageKeys.profilePicture),
    validTill: readNumber(storageKeys.validTill),
    rememberDeviceAt: readNumber(storageKeys.rememberDeviceAt),
    rememberedDeviceToken: localStorage.getItem(storageKeys.rememberedDeviceToken),
    rememberDevice: false,
    otpChallengeSent: false,
  };
}

function writeStoredState(state: AuthState): void {
  const persisted: Record<keyof typeof storageKeys, string | number | boolean | null> = {
    token: state.token,
    validTill: state.validTill,
    verified: state.token ? state.verified : null,
    username: state.username,
    userId: state.userId,
    institutionalUse: state.institutionalUse,
    profilePicture: state.profilePicture,
    rememberDeviceAt: state.rememberDeviceAt,
    rememberedDeviceToken: state.rememberedDeviceToken,
  };
  for (const [field, key] of Object.entries(storageKeys) as [keyof typeof storageKeys, string][]) {
    const value = persisted[field];
    if (value === null) localStorage.removeItem(key);
    else localStorage.setItem(key, String(value));
  }
}

let state = readStoredState();
const listeners = new Set<() => void>();

export const authStore = {
  get: (): AuthState => state,
  subscribe(listener: () => void): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
  update(patch: Partial<AuthState>): void {
    state = { ...state, ...patch };
    writeStoredState(state);
    for (const listener of listeners) listener();
  },
  /** A fresh login: not verified yet, valid for the session duration. */
  loggedIn(login: {
    token: string;
    userId: number;
    username: string;
    institutionalUse: InstitutionalUse | null;
    otpChallengeSent: boolean;
    rememberDevice: boolean;
  }): void {
    authStore.update({
      token: login.token,
      userId: login.userId,
      username: login.username,
      institutionalUse: login.institutionalUse,
      otpChallengeSent: login.otpChallengeSent,
      rememberDevice: login.rememberDevice,
      verified: false,
      profilePicture: null,
      validTill: Date.now() + SESSION_DURATION_MS,
    });
  },
  /** Forgets the login; the remembered device outlives it (that is its purpose). */
  loggedOut(): void {
    authStore.update({
      token: null,
      verified: false,
      username: null,
      userId: null,
      institutionalUse: null,
      profilePicture: null,
      validTill: null,
      rememberDevice: false,
      otpChallengeSent: false,
    });
  },
  /** §4.1: each route change restarts the 12-hour timer. */
  touch(): void {
    if (state.token) authStore.update({ validTill: Date.now() + SESSION_DURATION_MS });
  },
};

export function useAuth(): AuthState {
  return useSyncExternalStore(authStore.subscribe, authStore.get);
}

/** The remembered-device token, while its stamp is younger than 90 days (§9). */
export function validRememberedDeviceToken(auth: AuthState, now = Date.now()): string | null {
  if (!auth.rememberedDeviceToken || auth.rememberDeviceAt === null) return null;
  return now - auth.rememberDeviceAt < REMEMBER_DEVICE_MS ? auth.rememberedDeviceToken : null;
}
