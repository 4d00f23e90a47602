/* mnist_train.c: the command-line trainer. Parses flags, checks where it
 * will write, loads and validates the data (meanwhile the GPU starts and
 * is checked on a thread of its own: app/gpu_start_check.h; a data error
 * is said before what the check found, though a cuBLASLt call failing in
 * the check's probe prints its own line when it fails), trains, reports.
 * SIGINT and SIGTERM stop training between epochs (app/stop_signal.h):
 * nothing is written, and it exits 130 or 143 saying where it stopped;
 * they are held during the commits of --log and --save, and one that came
 * then stops it right after them, saying so. Like the other mains in app/,
 * it is where the program exits; the libraries below return their
 * errors. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_flags.h"
#include "app/gpu_start_check.h"
#include "app/stop_signal.h"
#include "app/train_options.h"
#include "app/train_outputs.h"
#include "app/train_report.h"
#include "data/mnist.h"
#include "gpu/gpu_context.h"
#include "gpu/gpu_warm.h"
#include "gpu/sample_stats.h"
#include "lt/lt_matmul.h"
#include "lt/lt_precision.h"
#include "train/checkpoint_io.h"
#include "train/data_source.h"
#include "train/eval_report.h"
#include "train/host_clock.h"
#include "train/inference.h"
#include "train/run_log.h"
#include "train/trainer.h"

#ifndef MNIST_SOURCE_DIR
#define MNIST_SOURCE_DIR "."
#endif

enum { EXIT_USAGE = 2 };

/* Says where a stop signal ended the run and that the files were left as
 * they were (or, when it came during the commits, `written`); returns the
 * exit code (128 + the signal: 130, 143). */
static int report_stop(const train_options *o, const trainer *t, int epochs,
                       int written) {
  int signo = stop_signal_received();
  fprintf(stderr,
          "\nmnist_train: %s: stopped after %d of %d epochs (%d optimiser "
          "steps)",
          signo == SIGINT ? "interrupted (SIGINT)" : "terminated (SIGTERM)",
          epochs, o->config.epochs, t ? trainer_steps_done(t) : 0);
  if (o->log_path || o->save_path)
    fprintf(stderr, "; %s%s%s%s%s %s", o->log_path ? "--log " : "",
            o->log_path ? o->log_path : "",
            o->log_path && o->save_path ? " and " : "",
            o->save_path ? "--save " : "", o->save_path ? o->save_path : "",
            written                       ? "written first"
            : o->log_path && o->save_path ? "left as they were, nothing written"
                                          : "left as it was, nothing written");
  fprintf(stderr, "\n");
  return 128 + signo;
}

/* The epochs, after setup (none with --steps 0; they end early at
 * --steps N, or at a stop signal). Returns 0 when training ran to the end,
 * 1 when it stopped because the loss diverged, -1 on a GPU error, 2 at a
 * stop signal; *test_accuracy gets the last epoch's (negative when none
 * ran), *epochs_run how many epochs ran. */
static int run_epochs(trainer *t, const train_options *o,
                      const mnist_dataset *data, run_log *log, double started,
                      double *test_accuracy, int *epochs_run) {
  epoch_stats s = {0};
  float total_ms = 0.0f;
  float *times = calloc((size_t)o->config.epochs, sizeof *times);
  if (!times) return -1;
  int status = 0, epochs = o->steps == 0 ? 0 : o->config.epochs, ran = 0;
  *test_accuracy = -1.0;
  for (int e = 0; e < epochs && status == 0; e++) {
    if (o->config.max_steps > 0 && trainer_steps_done(t) >= o->config.max_steps)
      break;
    if (stop_signal_received()) break;
    status = trainer_run_epoch(t, e, &s);
    ran++;
    if (status < 0) {
      fprintf(stderr,
              "mnist_train: a GPU error stopped training in epoch "
              "%d (see above)\n",
              e + 1);
      break;
    }
    double rate = data->train.count / (s.train_ms / 1000.0);
    if (!o->quiet)
      printf("%5d  %10.4f  %8.2f%%  %9.4f  %7.2f%%  %8.2f  %9.3g\n", e + 1,
             s.train_loss, 100.0 * s.train_accuracy, s.test_loss,
             100.0 * s.test_accuracy, s.train_ms, rate);
    if (log)
      run_log_printf(log, "%d,%.9g,%.9g,%.9g,%.9g,%.4f,%.4f,%.6g", e + 1,
                     s.train_loss, s.train_accuracy, s.test_loss,
                     s.test_accuracy, s.train_ms, s.test_ms, rate);
    fflush(stdout);
    if (status > 0) {
      fprintf(stderr,
              "mnist_train: the training loss became %g in epoch %d: "
              "training diverged; try a smaller --lr (now %g) or "
              "--momentum (now %g)",
              s.train_loss, e + 1, o->config.lr, o->config.momentum);
      if (o->gpu.precision == GPU_PRECISION_FP16)
        fprintf(stderr,
                ", or a smaller --loss-scale (now %g: FP16 overflows "
                "above 65504)",
                (double)trainer_network(t)->loss_scale);
      fprintf(stderr, "\n");
    }
    times[e] = s.train_ms;
    total_ms += s.train_ms;
    *test_accuracy = 100.0 * s.test_accuracy;
  }
  *epochs_run = ran;
  if (status == 0 && stop_signal_received()) {
    status = 2;
  } else if (status == 0 && ran > 0) {
    float median_ms, fastest_ms, slowest_ms;
    sample_stats(times, ran, &median_ms, &fastest_ms, &slowest_ms);
    printf("%sdone: test accuracy %.2f%% after %d epochs", o->quiet ? "" : "\n",
           100.0 * s.test_accuracy, ran);
    if (o->config.max_steps > 0)
      printf(" (%d optimiser steps)", trainer_steps_done(t));
    printf("; training %.1f ms in all, %.2f ms per epoch (median); %.2f s "
           "wall clock\n",
           total_ms, median_ms, host_clock_ms() / 1e3 - started);
  } else if (status == 0) {
    printf("no training step (--steps 0)\n");
  }
  free(times);
  return status;
}

/* --epochs 0: the loaded network on the test split, by an inference-only
 * network (no trainer: no training data, gradients or graphs), in batches
 * of --batch (else the file's, at most the split's size), with the checkpoint's
 * normalisation (o->config.pixel_scale, or the training split's for files that
 * record none). */
static int evaluate(const train_options *o, const mnist_dataset *data,
                    const char *dir, const mlp_checkpoint *checkpoint) {
  const trainer_config *c = &o->config;
  int batch = checkpoint_io_eval_batch(c->batch, data->test.count);
  gpu_context *ctx = NULL;
  mlp *net = NULL;
  inference_totals totals;
  eval_report report;
  float scale = c->pixel_scale, shift = c->pixel_shift;
  trainer_config_pixel_transform(&scale, &shift, data);
  int *pred = malloc((size_t)data->test.count * sizeof(int));
  mlp_options options;
  trainer_config_network(&options, c, &o->gpu);
  int status = pred && gpu_context_create(&ctx, &o->gpu) == 0 &&
                       inference_network_create(&net, ctx, checkpoint, &options,
                                                batch) == 0 &&
                       inference_run(&totals, pred, NULL, net, ctx, c->mode,
                                     &data->test, batch, scale, shift) == 0 &&
                       eval_report_count(&report, pred, data->test.labels,
                                         data->test.count) == 0
                   ? 0
                   : -1;
  if (status == 0) {
    if (!o->quiet) {
      char name[256];
      trainer_config_name(name, sizeof name, c);
      printf("mnist_train: %s, device %d: %s (%s, %s, %s), evaluated in "
             "batches of %d\n",
             ctx->device_name, o->gpu.device, name, mlp_mode_name(c->mode),
             gpu_precision_name(o->gpu.precision),
             lt_activation_name(c->activation), batch);
      train_report_data_line(data, dir, 0);
    }
    eval_report_print(stdout, &report, totals.mean_loss);
  } else if (!pred) {
    fprintf(stderr, "mnist_train: out of host memory for %d predictions\n",
            data->test.count);
  } else {
    fprintf(stderr, "mnist_train: evaluating the loaded network failed (see "
                    "above)\n");
  }
  mlp_destroy(net);
  gpu_context_destroy(ctx);
  free(pred);
  return status;
}

static int train(const train_options *o, const mnist_dataset *data,
                 const char *dir, double started,
                 const mlp_checkpoint *checkpoint) {
  gpu_context *ctx = NULL;
  trainer *t = NULL;
  run_log *log = NULL;
  int status = EXIT_FAILURE;
  char err[512];
  stop_signal_catch();
  /* The loaded parameters are the network's first: set before the
   * warm-up and the graphs (an FP8 network calibrates on them). */
  trainer_config config = o->config;
  if (checkpoint) {
    config.initial_layout = &checkpoint->layout;
    config.initial_params = checkpoint->slab;
  }
  if (gpu_context_create(&ctx, &o->gpu) != 0 ||
      trainer_create(&t, ctx, data, &config) != 0) {
    fprintf(stderr, "mnist_train: could not set up training on the GPU "
                    "(see above)\n");
    goto done;
  }
  if (stop_signal_received()) {
    status = report_stop(o, t, 0, 0);
    goto done;
  }
  if (o->log_path &&
      run_log_open(&log, o->log_path,
                   "epoch,train_loss,train_accuracy,test_loss,test_accuracy,"
                   "train_ms,test_ms,samples_per_s") != 0)
    goto done;
  if (!o->quiet) train_report_header(ctx, o, data, dir, t);
  double accuracy = -1.0;
  int epochs_run = 0;
  int ran = run_epochs(t, o, data, log, started, &accuracy, &epochs_run);
  stop_signal_hold(); /* until the commits are done (stop_signal.h) */
  if (stop_signal_received()) {
    status = report_stop(o, t, epochs_run, 0);
    goto done;
  }
  if (ran >= 0 && log) {
    int committed = run_log_commit(log);
    log = NULL;
    if (committed != 0) goto done;
  }
  if (ran == 0) {
    if (o->show_plans) {
      train_report_plans(ctx);
      step_tune_print(stdout, trainer_tune_report(t));
      if (trainer_cycle_ms(t) > 0.0)
        printf("context cycle: a CUDA context made and destroyed after the "
               "warm-up in %.1f ms\n",
               trainer_cycle_ms(t));
    }
    /* What the FP8 casts lost is part of the summary: --quiet too. */
    if (train_report_fp8(ctx, t, o->show_plans) != 0) goto done;
    status = EXIT_SUCCESS;
    if (o->save_path &&
        checkpoint_io_save(t, o->save_path, &o->config, o->gpu.precision,
                           epochs_run, trainer_steps_done(t), accuracy, err,
                           sizeof err) != 0) {
      fprintf(stderr, "mnist_train: %s\n", err);
      status = EXIT_FAILURE;
    } else if (o->save_path && !o->quiet) {
      printf("saved %s\n", o->save_path);
    }
  }
  stop_signal_release();
  if (status == EXIT_SUCCESS && stop_signal_received())
    status = report_stop(o, t, epochs_run, 1);
done:
  stop_signal_release();
  run_log_discard(log);
  trainer_destroy(t);
  gpu_context_destroy(ctx);
  return status;
}

int main(int argc, char **argv) {
  double started = host_clock_ms() / 1e3;
  train_options options;
  char err[512];
  if (train_options_parse(&options, argc, argv, err, sizeof err) != 0) {
    cli_report_bad_flags(stderr, "mnist_train", err);
    return EXIT_USAGE;
  }
  if (options.help) {
    train_options_usage(stdout, "mnist_train");
    return EXIT_SUCCESS;
  }
  /* The outputs, like the flags, before anything is read: exit 2. */
  if (train_outputs_check(&options, MNIST_SOURCE_DIR, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_train: %s\n", err);
    return EXIT_USAGE;
  }
  if (options.check_flags) {
    train_options_describe(stdout, &options);
    return EXIT_SUCCESS;
  }
  /* A checkpoint is read and checked before the data and the GPU. */
  mlp_checkpoint checkpoint = {0};
  if (options.load_path &&
      (checkpoint_io_load(
           &checkpoint, &options.config, options.load_path,
           (checkpoint_io_given){options.hidden_given, options.activation_given,
                                 options.mode_given, options.pad_given},
           err, sizeof err) != 0 ||
       (options.config.epochs == 0 &&
        (checkpoint_io_eval_settings(&options.config, &options.gpu.precision,
                                     &checkpoint, options.batch_given,
                                     options.precision_given, options.fp8_given,
                                     options.load_path, err, sizeof err) != 0 ||
         train_options_check_fp8(&options, err, sizeof err) != 0)))) {
    fprintf(stderr, "mnist_train: %s\n", err);
    return EXIT_FAILURE;
  }
  trainer_config_fit_precision(&options.config, options.gpu.precision);
  /* Evaluating a checkpoint that records its normalisation needs only the
   * test split. */
  int test_only = options.config.epochs == 0 && !options.check_data &&
                  options.config.pixel_scale > 0.0f;
  char dir[4096], why_data[1200];
  mnist_dataset data;
  /* The GPU starts up and is checked while the data is read (gpu_warm.h,
   * gpu_start_check.h); what it found is said after the data's errors. */
  gpu_start_check check;
  gpu_start_check_init(&check, options.gpu.device, options.gpu.precision,
                       lt_run_epilogues(options.config.activation,
                                        options.config.epochs > 0,
                                        mlp_mode_ways(options.config.mode)));
  gpu_warm *warm =
      options.check_data
          ? NULL
          : gpu_warm_create(options.gpu.device, gpu_start_check_job, &check);
  int loaded =
      data_source_load(&data, dir, sizeof dir, options.data_dir,
                       MNIST_SOURCE_DIR, test_only, why_data, sizeof why_data);
  int checked = gpu_warm_destroy(warm);
  if (loaded != 0) {
    fprintf(stderr, "mnist_train: %s\n", why_data);
    mlp_checkpoint_destroy(&checkpoint);
    return EXIT_FAILURE;
  }
  int status = EXIT_FAILURE;
  if (!options.check_data && !checked) gpu_start_check_run(&check);
  if (options.check_data) {
    train_report_data_line(&data, dir, 0);
    status = EXIT_SUCCESS;
  } else if (!check.available) {
    fprintf(stderr,
            "mnist_train: the data in %s is fine, but training needs "
            "a CUDA GPU: %s\n",
            dir, check.why);
  } else if (check.verdict < 0) {
    fprintf(stderr, "mnist_train: %s\n", check.why);
    status = EXIT_USAGE;
  } else if (options.config.epochs == 0) {
    if (check.why[0]) fprintf(stderr, "mnist_train: note: %s\n", check.why);
    status = evaluate(&options, &data, dir, &checkpoint) == 0 ? EXIT_SUCCESS
                                                              : EXIT_FAILURE;
  } else {
    if (check.why[0]) fprintf(stderr, "mnist_train: note: %s\n", check.why);
    status = train(&options, &data, dir, started,
                   options.load_path ? &checkpoint : NULL);
  }
  mlp_checkpoint_destroy(&checkpoint);
  mnist_dataset_destroy(&data);
  return status;
}
