import {
  REMEMBERED_DEVICE_HEADER,
  accountPaths,
  loginResponseSchema,
  meResponseSchema,
  messageResponseSchema,
  otpChallengeResponseSchema,
  otpVerifiedResponseSchema,
  registerResponseSchema,
  unlockLoginResponseSchema,
  userProfileSchema,
  verifyResponseSchema,
  type InstitutionalUse,
  type LoginRequest,
  type NewPasswordRequest,
  type RegisterRequest,
  type UpdateProfileRequest,
  type UserProfile,
  type VerifyRequest,
} from '@kinetrace/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, apiRequest } from '../app/api-client.ts';

/** One TanStack Query hook per account call of §7 (paths and bodies from the contracts). */

const rememberedDeviceHeaders = (rememberedDeviceToken: string | null): Record<string, string> =>
  rememberedDeviceToken ? { [REMEMBERED_DEVICE_HEADER]: rememberedDeviceToken } : {};

export const useLogin = () =>
  useMutation({
    mutationFn: ({
      credentials,
      rememberedDeviceToken,
    }: {
      credentials: LoginRequest;
      rememberedDeviceToken: string | null;
    }) =>
      apiRequest(accountPaths.login, {
        body: credentials,
        headers: rememberedDeviceHeaders(rememberedDeviceToken),
        schema: loginResponseSchema,
      }),
  });

/** Asks whether a remembered device makes the fresh login verified (no code needed). */
export const checkOtpVerified = (rememberedDeviceToken: string) =>
  apiRequest(accountPaths.checkOtpVerified, {
    headers: rememberedDeviceHeaders(rememberedDeviceToken),
    schema: otpVerifiedResponseSchema,
  });

export const logout = () =>
  apiRequest(accountPaths.logout, { method: 'POST', schema: messageResponseSchema.partial() });

export const useVerify = () =>
  useMutation({
    mutationFn: (body: VerifyRequest) => apiRequest(accountPaths.verify, { body, schema: verifyResponseSchema }),
  });

export const useResetOtpChallenge = () =>
  useMutation({
    mutationFn: () =>
      apiRequest(accountPaths.resetOtpChallenge, { method: 'POST', schema: otpChallengeResponseSchema }),
  });

export const useRegister = () =>
  useMutation({
    mutationFn: (body: RegisterRequest) => apiRequest(accountPaths.register, { body, schema: registerResponseSchema }),
  });

export const meQueryKey = ['me'] as const;
/** Who the stored token belongs to; checked at start-up before the app is shown (§2.2). */
export const useMe = (enabled: boolean) =>
  useQuery({
    queryKey: meQueryKey,
    queryFn: () => apiRequest(accountPaths.me, { schema: meResponseSchema }),
    enabled,
    retry: false,
    staleTime: Infinity,
  });

const userInfoQueryKey = (username: string) => ['user-info', username] as const;

/** A profile, or null when the user does not exist (404). */
export const useUserInfo = (username: string) =>
  useQuery({
    queryKey: userInfoQueryKey(username),
    queryFn: async (): Promise<UserProfile | null> => {
      try {
        return await apiRequest(accountPaths.getUserInfo, { body: { username }, schema: userProfileSchema });
      } catch (error) {
        if (error instanceof ApiError && error.status === 404) return null;
        throw error;
      }
    },
    retry: false,
  });

export const useUpdateProfile = (username: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: UpdateProfileRequest) =>
      apiRequest(accountPaths.updateProfile, { body, schema: userProfileSchema }),
    onSuccess: (profile) => queryClient.setQueryData(userInfoQueryKey(username), profile),
  });
};

export const useUpdateProfilePicture = (username: string) => {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (picture: File) => {
      const form = new FormData();
      form.append('username', username);
      form.append('profile_picture', picture);
      return apiRequest(accountPaths.updateProfilePicture, { body: form, schema: userProfileSchema });
    },
    onSuccess: (profile) => queryClient.setQueryData(userInfoQueryKey(username), profile),
  });
};

export const useResetPassword = () =>
  useMutation({
    mutationFn: (email: string) =>
      apiRequest(accountPaths.resetPassword, {
        body: { email, host: window.location.origin },
        schema: messageResponseSchema,
      }),
  });

export const useNewPassword = () =>
  useMutation({
    mutationFn: (body: NewPasswordRequest) =>
      apiRequest(accountPaths.newPassword, { body, schema: messageResponseSchema }),
  });

/** Asks for a link, mailed to the account's owner, that lets the browser opening it log in despite the limits. */
export const useSendUnlockLink = () =>
  useMutation({
    mutationFn: (username: string) =>
      apiRequest(accountPaths.sendUnlockLink, { body: { username }, schema: messageResponseSchema }),
  });

/** Opens an unlock link: the answer's token makes this browser one the account remembers. */
export const useUnlockLogin = () =>
  useMutation({
    mutationFn: (token: string) =>
      apiRequest(accountPaths.unlockLogin, { body: { token }, schema: unlockLoginResponseSchema }),
  });

export const useSetInstitutionalUse = () =>
  useMutation({
    mutationFn: (institutionalUse: InstitutionalUse) =>
      apiRequest(accountPaths.setInstitutionalUse, {
        body: { institutional_use: institutionalUse },
        schema: messageResponseSchema,
      }),
  });

export const useDeleteAccount = () =>
  useMutation({
    mutationFn: (confirm: string) =>
      apiRequest(accountPaths.deleteAccount, { body: { confirm }, schema: messageResponseSchema }),
  });
