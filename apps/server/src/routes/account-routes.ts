import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  accountPaths,
  deleteAccountRequestSchema,
  loginRequestSchema,
  loginResponseSchema,
  meResponseSchema,
  messageResponseSchema,
  messages,
  newPasswordRequestSchema,
  otpChallengeResponseSchema,
  otpVerifiedResponseSchema,
  registerRequestSchema,
  registerResponseSchema,
  REMEMBERED_DEVICE_HEADER,
  resetPasswordRequestSchema,
  sendUnlockLinkRequestSchema,
  setInstitutionalUseRequestSchema,
  updateProfileRequestSchema,
  userInfoRequestSchema,
  unlockLoginRequestSchema,
  unlockLoginResponseSchema,
  userProfileSchema,
  verifyRequestSchema,
  verifyResponseSchema,
} from '@kinetrace/contracts';
import { requireBrowserLogin, requireLogin, requireVerified } from '../http/authentication.ts';
import { invalidFields } from '../http/http-errors.ts';
import { pictureTooLargeError, type AccountService } from '../services/account-service.ts';
import type { AuthService } from '../services/auth-service.ts';

const tags = ['Account'];
const rememberedDeviceHeaders = z.object({ [REMEMBERED_DEVICE_HEADER]: z.string().max(200).optional() });

export function registerAccountRoutes(app: FastifyInstance, authService: AuthService, accounts: AccountService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();

  // JSON, or a form as OpenCap's client posts it (opencap-processing utilsAuthentication.py): the
  // form parser is this route's alone.
  app.register(async (scope) => {
    await scope.register(fastifyFormbody);
    scope.withTypeProvider<ZodTypeProvider>().post(
      accountPaths.login,
      {
        schema: {
          tags,
          body: loginRequestSchema,
          headers: rememberedDeviceHeaders,
          response: { 200: loginResponseSchema },
        },
      },
      (request) => authService.login(request.body, request.ip, request.headers[REMEMBERED_DEVICE_HEADER]),
    );
  });

  api.post(accountPaths.logout, { schema: { tags, response: { 200: messageResponseSchema } } }, async (request) => {
    await authService.logout(requireLogin(request));
    return { message: messages.loggedOut };
  });

  api.get(accountPaths.me, { schema: { tags, response: { 200: meResponseSchema } } }, (request) => {
    const context = requireLogin(request);
    return authService.describe(context, accounts.profilePictureUrl(context.user));
  });

  api.post(
    accountPaths.verify,
    { schema: { tags, body: verifyRequestSchema, response: { 200: verifyResponseSchema } } },
    (request) =>
      authService.verify(requireLogin(request), request.body.otp_token, request.body.remember_device, request.ip),
  );

  api.get(
    accountPaths.checkOtpVerified,
    { schema: { tags, headers: rememberedDeviceHeaders, response: { 200: otpVerifiedResponseSchema } } },
    async (request) => ({
      otp_verified: await authService.checkOtpVerified(
        requireLogin(request),
        request.headers[REMEMBERED_DEVICE_HEADER],
      ),
    }),
  );

  api.post(
    accountPaths.resetOtpChallenge,
    { schema: { tags, response: { 200: otpChallengeResponseSchema } } },
    async (request) => {
      await authService.resendCode(requireLogin(request), request.ip);
      return { otp_challenge_sent: true as const };
    },
  );

  api.post(
    accountPaths.register,
    { schema: { tags, body: registerRequestSchema, response: { 201: registerResponseSchema } } },
    async (request, reply) => reply.code(201).send(await accounts.register(request.body, request.ip)),
  );

  api.post(
    accountPaths.getUserInfo,
    { schema: { tags, body: userInfoRequestSchema, response: { 200: userProfileSchema } } },
    (request) =>
      accounts.getUserInfo(request.body.username, request.auth?.token.verified ? request.auth.user : undefined),
  );

  api.post(
    accountPaths.updateProfile,
    { schema: { tags, body: updateProfileRequestSchema, response: { 200: userProfileSchema } } },
    (request) => accounts.updateProfile(requireBrowserLogin(request), request.body),
  );

  api.post(
    accountPaths.updateProfilePicture,
    { schema: { tags, consumes: ['multipart/form-data'], response: { 200: userProfileSchema } } },
    async (request) => {
      const context = requireVerified(request);
      if (!request.isMultipart()) throw invalidFields({ profile_picture: [messages.required] });
      let username = context.user.username;
      let picture: Buffer | undefined;
      for await (const part of request.parts()) {
        if (part.type === 'field' && part.fieldname === 'username') username = String(part.value);
        else if (part.type === 'file' && part.fieldname === 'profile_picture') {
          try {
            picture = await part.toBuffer();
          } catch (error) {
            if ((error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw pictureTooLargeError();
            throw error;
          }
        } else if (part.type === 'file') part.file.resume();
      }
      if (!picture) throw invalidFields({ profile_picture: [messages.required] });
      return accounts.updateProfilePicture(context, username, picture);
    },
  );

  api.post(
    accountPaths.resetPassword,
    { schema: { tags, body: resetPasswordRequestSchema, response: { 200: messageResponseSchema } } },
    (request) => accounts.requestPasswordReset(request.body.email, request.ip),
  );

  api.post(
    accountPaths.newPassword,
    { schema: { tags, body: newPasswordRequestSchema, response: { 200: messageResponseSchema } } },
    (request) => accounts.setNewPassword(request.body),
  );

  api.post(
    accountPaths.sendUnlockLink,
    { schema: { tags, body: sendUnlockLinkRequestSchema, response: { 200: messageResponseSchema } } },
    (request) => authService.sendUnlockLink(request.body.username, request.ip),
  );

  api.post(
    accountPaths.unlockLogin,
    { schema: { tags, body: unlockLoginRequestSchema, response: { 200: unlockLoginResponseSchema } } },
    (request) => authService.unlockLogin(request.body.token),
  );

  api.post(
    accountPaths.setInstitutionalUse,
    { schema: { tags, body: setInstitutionalUseRequestSchema, response: { 200: messageResponseSchema } } },
    (request) => accounts.setInstitutionalUse(requireVerified(request), request.body.institutional_use),
  );

  api.post(
    accountPaths.deleteAccount,
    { schema: { tags, body: deleteAccountRequestSchema, response: { 200: messageResponseSchema } } },
    (request) => accounts.deleteAccount(requireBrowserLogin(request), request.body.confirm),
  );
}
