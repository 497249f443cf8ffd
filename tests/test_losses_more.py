"""fg.nn's losses from optax that the first batch lacked (focal, log-cosh, label smoothing,
the KL variants, safe / poly cross entropy, hinge and perceptron, triplet, NT-Xent, sparsemax,
Dice, ranking softmax): values and gradients against optax 0.2.8's (computed once with JAX in
float64 by /tmp/losses_more/gen_constants.py and written out below), derivatives
(check_grads), finiteness at logits of +-1e4, float32 in float32 out, jit == eager,
vmap == loop."""
import numpy as np
import pytest

import fungrad as fg
import fungrad.numpy as fnp
from fungrad.nn import losses


LOGITS = np.array([[0.5, -1.2, 2.0, 0.0], [1e4, -1e4, 0.3, -0.7], [-3.0, 1.5, -0.2, 1e4]])
BINARY = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 0.0], [1.0, 1.0, 0.0, 0.0]])
SOFT = np.array([[0.9, 0.1, 0.6, 0.3], [0.2, 0.7, 0.5, 0.0], [1.0, 0.4, 0.25, 0.8]])
DIST = np.array([[0.1, 0.2, 0.3, 0.4], [0.0, 0.5, 0.5, 0.0], [0.25, 0.25, 0.25, 0.25]])
CLASSES = np.array([2, 0, 3])
SIGNS = np.array([[1.0, -1.0, 1.0, 1.0], [-1.0, 1.0, -1.0, 1.0], [1.0, 1.0, -1.0, -1.0]])
MASK = np.array([[True, True, False, True], [True, False, True, True],
                 [False, True, True, True]])
SMALL = np.array([[0.5, -1.2, 2.0, 0.1], [1.3, -0.4, 0.3, -0.7], [-3.0, 1.5, -0.2, 0.9]])
EMB = np.array([[0.3, -1.0, 2.0], [1.0, 0.5, -0.5], [0.2, -0.8, 1.5], [-1.0, 0.3, 0.4],
                [0.9, 0.7, -0.2]])
GROUPS = np.array([0, 1, 0, 2, 1])
SEG = np.array([[[[1.0, -0.5, 0.2], [0.3, 2.0, -1.0]], [[-0.4, 0.1, 1e4], [0.0, -2.0, 0.5]]],
                [[[0.7, 0.7, -0.1], [-1e4, 0.2, 1.1]], [[2.0, -1.0, 0.0], [0.4, 0.3, -0.6]]]])
SEG_T = np.eye(3)[np.array([[[0, 1], [2, 0]], [[1, 1], [2, 0]]])]

# name -> (loss, input, optax"s value, optax"s gradient of the loss"s sum)
OPTAX = {
    "sigmoid_focal_loss": (
        lambda x: fg.nn.sigmoid_focal_loss(x, BINARY),
        LOGITS,
        np.array([[0.06757349051750364, 0.014106878868773638, 0.0018035628352403748,
                   0.17328679513998632],
                  [10000.0, 10000.0, 0.10039327548859708, 0.04439052374130767],
                  [2.766280441025262, 0.0067028469265756575, 0.12121250092646661, 10000.0]]),
        np.array([[-0.13793699735091441, 0.0340855937480784, -0.004870940195392764,
                   0.29828679513998635],
                  [1.0, -1.0, -0.1924084393152823, 0.09585472244050613],
                  [-1.1267498806348886, -0.017031105223235928, 0.2245193916563319, 1.0]])),
    "sigmoid_focal_loss_soft": (
        lambda x: fg.nn.sigmoid_focal_loss(x, SOFT, alpha=0.25, gamma=1.5),
        LOGITS,
        np.array([[0.04007819394539323, 0.040859776454356886, 0.11509655633713363,
                   0.14703872152028205],
                  [3720.8171145596516, 1639.853652006788, 0.124513592432001,
                   0.05779700567467762],
                  [0.7085766293244984, 0.25625426210522184, 0.13264849341649998,
                   62.60990336999408]]),
        np.array([[-0.049337331214167154, 0.044601728655840264, 0.02631304540820793,
                   0.08653802332727745],
                  [0.37208171145596514, -0.1639853652006788, 0.013159702111529406,
                   0.10549439656391638],
                  [-0.27181206231951016, 0.11749964495476196, 0.0927981441819575,
                   0.0062609903369994085]])),
    "sigmoid_focal_loss_gamma_half": (
        lambda x: fg.nn.sigmoid_focal_loss(x, BINARY, gamma=0.5),
        LOGITS,
        np.array([[0.2912934651463975, 0.12667012197854916, 0.043822880991204426,
                   0.4901290717342736],
                  [10000.0, 10000.0, 0.36163235235066854, 0.2322478431143282],
                  [2.9754183296501915, 0.08602623152991613, 0.4013177531315776, 10000.0]]),
        np.array([[-0.3226365328560928, 0.16004162240983869, -0.0604552668096537,
                   0.4760856585268422],
                  [1.0, -1.0, -0.38147993213816345, 0.2687268621418647],
                  [-1.0002673398454893, -0.11308274027048268, 0.41236530154688056, 1.0]])),
    "log_cosh": (
        lambda x: fg.nn.log_cosh(x, SOFT),
        LOGITS,
        np.array([[0.07795348538783242, 0.6784975114077246, 0.765885645728026,
                   0.04434076992594038],
                  [9999.10685281944, 10000.00685281944, 0.019868071840007162,
                   0.2272702293585056],
                  [3.3071882258129506, 0.5119361392087508, 0.09800669417214258,
                   9998.50685281944]]),
        np.array([[-0.37994896225522495, -0.8617231593133063, 0.8853516482022625,
                   -0.29131261245159085],
                  [1.0, -1.0, -0.197375320224904, -0.6043677771171634],
                  [-0.9993292997390668, 0.8004990217606297, -0.42189900525000784, 1.0]])),
    "smooth_labels": (
        lambda x: fg.nn.smooth_labels(x, 0.1),
        SOFT,
        np.array([[0.8350000000000001, 0.11500000000000002, 0.5650000000000001,
                   0.29500000000000004],
                  [0.20500000000000002, 0.655, 0.47500000000000003, 0.025],
                  [0.925, 0.38500000000000006, 0.25, 0.7450000000000001]]),
        np.array([[0.9, 0.9, 0.9, 0.9], [0.9, 0.9, 0.9, 0.9], [0.9, 0.9, 0.9, 0.9]])),
    "smooth_labels_where": (
        lambda x: fg.nn.smooth_labels(x, 0.3, axis=0, where=MASK),
        SOFT,
        np.array([[0.78, 0.21999999999999997, 0.57, 0.31],
                  [0.29, 0.6399999999999999, 0.5, 0.09999999999999999],
                  [0.85, 0.42999999999999994, 0.32499999999999996, 0.6599999999999999]]),
        np.array([[0.7, 0.7, 0.7, 0.7], [0.7, 0.7, 0.7, 0.7], [0.7, 0.7, 0.7, 0.7]])),
    "kl_divergence_with_log_targets": (
        lambda x: fg.nn.kl_divergence_with_log_targets(x, np.log(DIST + 0.05)),
        SMALL,
        np.array([-1.8779077948853895, -0.9321939281865816, -1.2047673651911233]),
        np.array([[-0.15000000000000002, -0.25, -0.35, -0.45], [-0.05, -0.55, -0.55, -0.05],
                  [-0.3, -0.3, -0.3, -0.3]])),
    "kl_divergence_with_log_targets_where": (
        lambda x: fg.nn.kl_divergence_with_log_targets(x, np.log(DIST + 0.05), where=MASK),
        SMALL,
        np.array([-0.810470051310852, -0.8233835777709905, -1.7435755238933424]),
        np.array([[-0.15000000000000002, -0.25, -0.0, -0.45], [-0.05, -0.0, -0.55, -0.05],
                  [-0.0, -0.3, -0.3, -0.3]])),
    "generalized_kl_divergence": (
        lambda x: fg.nn.generalized_kl_divergence(x, SOFT + 0.1),
        SMALL,
        np.array([5.506066163625032, 3.1296002591141487, 6.065815402779065]),
        np.array([[0.6487212707001282, 0.10119421191220213, 6.68905609893065,
                   0.7051709180756477],
                  [3.3692966676192446, -0.12967995396436072, 0.7498588075760032,
                   0.39658530379140955],
                  [-1.0502129316321362, 3.9816890703380645, 0.46873075307798184,
                   1.55960311115695]])),
    "generalized_kl_divergence_axis0": (
        lambda x: fg.nn.generalized_kl_divergence(x, SOFT + 0.1, axis=0, where=MASK),
        SMALL,
        np.array([2.766826097021592, 2.9044221094834737, 0.4346564428198535, 1.1897600668828967]),
        np.array([[0.6487212707001282, 0.10119421191220213, 0.0, 0.7051709180756477],
                  [3.3692966676192446, 0.0, 0.7498588075760032, 0.39658530379140955],
                  [0.0, 3.9816890703380645, 0.46873075307798184, 1.55960311115695]])),
    "safe_softmax_cross_entropy": (
        lambda x: fg.nn.safe_softmax_cross_entropy(x, DIST),
        LOGITS,
        np.array([1.9259204039348516, 14999.85, 7500.425]),
        np.array([[0.05946666046006038, -0.1708680684982353, 0.41467998926716393,
                   -0.3032785812289891],
                  [1.0, -0.5, -0.5, 0.0], [-0.25, -0.25, -0.25, 0.75]])),
    "safe_softmax_cross_entropy_inf": (
        lambda x: fg.nn.safe_softmax_cross_entropy(x, DIST),
        np.where(DIST == 0, -np.inf, LOGITS),
        np.array([1.9259204039348516, 5000.15, 7500.425]),
        np.array([[0.05946666046006038, -0.1708680684982353, 0.41467998926716393,
                   -0.3032785812289891],
                  [0.0, -0.5, 0.5, 0.0], [-0.25, -0.25, -0.25, 0.75]])),
    "poly_loss_cross_entropy": (
        lambda x: fg.nn.poly_loss_cross_entropy(x, DIST),
        LOGITS,
        np.array([3.3761891706650267, 15001.85, 7501.925]),
        np.array([[0.11523713228817775, -0.166506108466944, 0.3787539075999689,
                   -0.3274849314212027],
                  [1.0, -0.5, -0.5, 0.0], [-0.25, -0.25, -0.25, 0.75]])),
    "poly_loss_cross_entropy_where": (
        lambda x: fg.nn.poly_loss_cross_entropy(x, DIST, epsilon=-1.0, where=MASK),
        LOGITS,
        np.array([0.4591516586876206, 4999.35, 4999.175]),
        np.array([[0.22868725870500478, -0.12974398745965085, 0.0, -0.09894327124535385],
                  [0.5, 0.0, -0.5, 0.0], [0.0, -0.25, -0.25, 0.5]])),
    "multiclass_hinge_loss": (
        lambda x: fg.nn.multiclass_hinge_loss(x, CLASSES),
        LOGITS,
        np.array([0.0, 0.0, 0.0]),
        np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])),
    "perceptron_loss": (
        lambda x: fg.nn.perceptron_loss(x, SIGNS),
        LOGITS,
        np.array([[0.0, 0.0, 0.0, 0.0], [10000.0, 10000.0, 0.3, 0.7], [3.0, 0.0, 0.0, 10000.0]]),
        np.array([[-0.0, 0.0, -0.0, -0.5], [1.0, -1.0, 1.0, -1.0], [-1.0, -0.0, 0.0, 1.0]])),
    "multiclass_perceptron_loss": (
        lambda x: fg.nn.multiclass_perceptron_loss(x, CLASSES),
        LOGITS,
        np.array([0.0, 0.0, 0.0]),
        np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])),
    "triplet_margin_loss": (
        lambda x: fg.nn.triplet_margin_loss(x, SOFT, SIGNS * 0.3),
        SMALL,
        np.array([1.0179194751638465, 0.6175564567477727, 1.461884579129241]),
        np.array([[-0.30672773646760987, -0.1996312741697991, -0.160879558776165,
                   0.0009394613177950151],
                  [-0.12146002335740846, -0.3071113566231636, -0.40215873553194637,
                   0.0686347344601575],
                  [-0.06933265629133745, -0.0597289887077338, -0.1347481797465364,
                   -0.29930578382322665]])),
    "triplet_margin_loss_opts": (
        lambda x: fg.nn.triplet_margin_loss(x, SOFT, SIGNS * 0.3, axis=0, norm_degree=4,
                                            margin=0.5, eps=1e-3),
        SMALL,
        np.array([1.161117548607773, 0.738031887310475, 0.19734402589648714, 0.0]),
        np.array([[-0.0012094615293621828, -0.2667991569881011, 0.0031485228643316487, 0.0],
                  [-0.08876251103833106, -0.20522821955500842, -0.04634683394758117, 0.0],
                  [-0.03520851363086008, -0.40683278672705664, -0.03313006672525092, 0.0]])),
    "ntxent": (
        lambda x: fg.nn.ntxent(x, GROUPS),
        EMB,
        1.0176099214872929e-06,
        np.array([[-2.663607219063461e-06, 1.109769857512353e-06, 9.544260116156963e-07],
                  [9.433281751435313e-09, -2.2303834383964825e-08, -3.437270881094236e-09],
                  [-4.02599226602036e-06, 1.1445012136370965e-06, 1.1471996160758324e-06],
                  [2.5433881967610363e-06, -6.1465932862543845e-06, 1.0968415456593379e-05],
                  [3.305576443030115e-08, -1.205276107395196e-08, 1.0656627617752347e-07]])),
    "ntxent_large": (
        lambda x: fg.nn.ntxent(x, GROUPS, temperature=0.01),
        EMB * 1e4,
        -0.0,
        np.array([[-1.085937251825574e-43, 3.641579871655863e-44, 3.4496958135662927e-44],
                  [7.044892469839255e-64, -3.874664105333518e-64, 1.021512083434499e-63],
                  [-2.2017357257451693e-43, 7.485306805622502e-44, 6.927811263992227e-44],
                  [1.2080787093875354e-43, -2.950795912975845e-43, 5.233293708200723e-43],
                  [6.235728226524408e-59, -4.126861484349266e-59, 1.3616761824137404e-58]])),
    "sparsemax_loss": (
        lambda x: fg.nn.sparsemax_loss(x, BINARY),
        LOGITS,
        np.array([[0.0625, 0.0, 0.0, 0.25],
                  [10000.0, 10000.0, 0.12249999999999998, 0.022500000000000006],
                  [3.0, 0.0, 0.16000000000000003, 10000.0]]),
        np.array([[-0.25, 0.0, 0.0, 0.5], [1.0, -1.0, -0.35, 0.15000000000000002],
                  [-1.0, 0.0, 0.4, 1.0]])),
    "multiclass_sparsemax_loss": (
        lambda x: fg.nn.multiclass_sparsemax_loss(x, CLASSES),
        LOGITS,
        np.array([0.0, 0.0, 0.0]),
        np.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]])),
    "multiclass_sparsemax_loss_small": (
        lambda x: fg.nn.multiclass_sparsemax_loss(x, CLASSES),
        SMALL * 0.3,
        np.array([0.08363333333333337, 0.12903749999999997, 0.35023333333333334]),
        np.array([[0.2233333333333334, 0.0, -0.3266666666666666, 0.10333333333333342],
                  [-0.3975, 0.0925, 0.3025, 0.0025000000000000022],
                  [0.0, 0.5633333333333332, 0.05333333333333329, -0.6166666666666667]])),
    "dice_loss": (
        lambda x: fg.nn.dice_loss(x, SEG_T),
        SEG,
        np.array([0.17000206926792977, 0.3970357014463679]),
        np.array([[[[-0.03431562179578517, 0.013188854409049006, 0.02112676738673617],
                    [0.016958290476736124, -0.021799946197227582, 0.004841655720491456]],
                   [[0.0, 0.0, 0.0],
                    [-0.031662877617699196, 0.003310228104871804, 0.028352649512827392]]],
                  [[[0.021819986395937477, -0.031459531794360375, 0.009639545398422893],
                    [0.0, -0.0266329823362426, 0.026632982336242603]],
                   [[0.0155157005764531, 0.0007416708316924465, -0.016257371408145548],
                    [-0.03481698367877563, 0.024772101723192948, 0.010044881955582678]]]])),
    "dice_loss_opts": (
        lambda x: fg.nn.dice_loss(x, SEG_T, class_weights=np.array([0.2, 1.0, 2.0]), smooth=0.5,
                                  alpha=0.3, beta=0.7, reduction="none",
                                  ignore_background=True, axis=(1,)),
        SEG,
        np.array([[[0.07411578224733051, 0.10198549876021645],
                   [0.10056152439504795, 0.5502606505096821]],
                  [[0.31968772256667666, 1.0472375820815145],
                   [0.43885921091272273, 0.6873973175518482]]]),
        np.array([[[[-0.09890083916003382, 0.04655487298860432, 0.05234596617142951],
                    [0.05645457720824959, -0.09731095706425202, 0.04085637985600235]],
                   [[0.0, 0.0, 0.0],
                    [-0.13735100080638565, -0.009592028667727587, 0.1469430294741134]]],
                  [[[0.08276632132161832, -0.1606253646391878, 0.07785904331756942],
                    [-0.0, -0.2277599143092804, 0.22775991430928036]],
                   [[0.1226922992228965, 0.012530542134061169, -0.1352228413569576],
                    [-0.05778513276188382, -0.004622713761641581, 0.06240784652352538]]]])),
    "dice_loss_sum": (
        lambda x: fg.nn.dice_loss(x, SEG_T, reduction="sum"),
        SEG,
        np.array([0.5100062078037894, 1.1911071043391037]),
        np.array([[[[-0.10294686538735551, 0.03956656322714702, 0.06338030216020851],
                    [0.05087487143020837, -0.06539983859168275, 0.014524967161474368]],
                   [[0.0, 0.0, 0.0],
                    [-0.09498863285309758, 0.00993068431461541, 0.08505794853848217]]],
                  [[[0.06545995918781243, -0.09437859538308112, 0.02891863619526867],
                    [0.0, -0.0798989470087278, 0.0798989470087278]],
                   [[0.04654710172935929, 0.002225012495077338, -0.048772114224436655],
                    [-0.10445095103632686, 0.07431630516957884, 0.030134645866748033]]]])),
    "binary_dice_loss": (
        lambda x: fg.nn.binary_dice_loss(x, BINARY),
        LOGITS,
        np.array([0.19699625919137254, 0.4668558723310895, 0.40935828277485553]),
        np.array([[-0.04511799084386119, 0.022911956742459896, -0.020157552323411463,
                   0.03219880938824508],
                  [0.0, -0.0, -0.06071277409240143, 0.020013514745875947],
                  [-0.010082093808836241, -0.03328507530182187, 0.023149606106663598, 0.0]])),
    "binary_dice_loss_channel": (
        lambda x: fg.nn.binary_dice_loss(x, SEG_T[..., :1], smooth=0.1),
        SEG[..., :1],
        np.array([0.39590881340291284, 0.5825830286735538]),
        np.array([[[[-0.062279089972745026], [0.03351063387410026]],
                   [[0.032935226579851505], [-0.07919037383180205]]],
                  [[[0.027645092460656318], [0.0]],
                   [[0.013091514863994905], [-0.11358117542914468]]]])),
    "multiclass_generalized_dice_loss": (
        lambda x: fg.nn.multiclass_generalized_dice_loss(x, SEG_T),
        SEG,
        0.2956539942284452,
        np.array([[[[-0.01604498360347332, 0.0037771877975237415, 0.012267795805949581],
                    [0.005838657339822594, -0.00849669816467789, 0.002658040824855299]],
                   [[0.0, 0.0, 0.0],
                    [-0.016383800076319073, 0.0004633994248372148, 0.015920400651481863]]],
                  [[[0.0062899860691907035, -0.012514549900947775, 0.00622456383175707],
                    [0.0, -0.01327179686312395, 0.01327179686312395]],
                   [[0.010456121663843057, 0.0005097053804077715, -0.01096582704425083],
                    [-0.013630274071231026, 0.007528869209096302, 0.006101404862134725]]]])),
    "multiclass_generalized_dice_loss_background": (
        lambda x: fg.nn.multiclass_generalized_dice_loss(x, SEG_T, smooth=0.1,
                                                         ignore_background=True),
        SEG,
        0.5626648373916925,
        np.array([[[[-0.01992345383845482, 0.004474514606791582, 0.015448939231663236],
                    [0.010767352656764395, -0.017370741207463146, 0.0066033885506987374]],
                   [[0.0, 0.0, 0.0],
                    [-0.02048672804674424, 0.00047752436556481047, 0.020009203681179442]]],
                  [[[0.011149034179593892, -0.021711849900782405, 0.010562815721188508],
                    [0.0, -0.022760851531083003, 0.022760851531083003]],
                   [[0.028467815017668457, 0.0024786768269800807, -0.030946491844648528],
                    [-0.0065816962153951025, 0.00410305036860542, 0.002478645846789682]]]])),
    "ranking_softmax_loss": (
        lambda x: fg.nn.ranking_softmax_loss(x, SOFT),
        LOGITS,
        11835.069416255825,
        np.array([[-0.1990044483752951, -0.014883110048882355, 0.25263065986920374,
                   -0.03874310144502639],
                  [0.4, -0.2333333333333333, -0.16666666666666666, 0.0],
                  [-0.3333333333333333, -0.13333333333333333, -0.08333333333333333, 0.55]])),
    "ranking_softmax_loss_where": (
        lambda x: fg.nn.ranking_softmax_loss(x, SOFT, where=MASK, weights=DIST),
        LOGITS,
        1375.0051028665318,
        np.array([[0.012849351051601367, 0.001161203786812621, 0.0, -0.014010554838413992],
                  [0.08333333333333333, 0.0, -0.08333333333333333, 0.0],
                  [0.0, -0.03333333333333333, -0.020833333333333332, 0.05416666666666667]])),
    "ranking_softmax_loss_none": (
        lambda x: fg.nn.ranking_softmax_loss(x, SOFT, where=MASK, reduce_fn=None),
        LOGITS,
        np.array([1.076309475973205, 4999.85, 6499.450000000001]),
        np.array([[-0.1734240473858898, 0.03273345551551838, 0.0, 0.14069059187037136],
                  [0.49999999999999994, 0.0, -0.5, 0.0], [0.0, -0.4, -0.25, 0.6500000000000001]])),
}
# optax's deprecated name of generalized_kl_divergence: the same numbers
OPTAX["convex_kl_divergence"] = (lambda x: fg.nn.convex_kl_divergence(x, SOFT + 0.1),
                                 *OPTAX["generalized_kl_divergence"][1:])


@pytest.mark.parametrize("name", sorted(OPTAX))
def test_values_and_gradients_match_optax(name):
    f, x, value, grad = OPTAX[name]
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = f(x)
        g = fg.grad(lambda v: fnp.sum(f(v)))(x)
    assert type(out) is np.ndarray and out.dtype == np.float64
    np.testing.assert_allclose(out, value, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(g, grad, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("name", sorted(OPTAX))
def test_jit_matches_eager(name):
    f, x, _, _ = OPTAX[name]
    np.testing.assert_allclose(fg.jit(f)(x), f(x), rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(fg.jit(fg.grad(lambda v: fnp.sum(f(v))))(x),
                               fg.grad(lambda v: fnp.sum(f(v)))(x), rtol=1e-12, atol=1e-14)


R = np.random.default_rng(3)
X = R.standard_normal((4, 5))
X = np.where(np.abs(X) < 0.1, 0.4, X)
Y = (R.uniform(size=(4, 5)) > 0.5).astype(float)
P = R.dirichlet(np.ones(5), 4)
LABELS = np.array([1, 4, 0, 2])
S4 = R.standard_normal((2, 3, 3, 3))
T4 = np.eye(3)[R.integers(0, 3, (2, 3, 3))]
MASK_5 = R.uniform(size=(4, 5)) > 0.3
MASK_5[:, 0] = True

# name -> (loss, differentiated arguments, fixed arguments, order of check_grads); the
# arguments keep away from kinks
SMOOTH = {
    "sigmoid_focal_loss": (lambda l, y: fg.nn.sigmoid_focal_loss(l, y, alpha=0.25),
                           (X, R.uniform(size=(4, 5))), (), 2),
    "sigmoid_focal_loss_gamma_half": (
        lambda l: fg.nn.sigmoid_focal_loss(l, Y, gamma=0.5), (X,), (), 2),
    "log_cosh": (fg.nn.log_cosh, (X, P), (), 2),
    "smooth_labels": (lambda y: fg.nn.smooth_labels(y, 0.2, where=MASK_5), (P,), (), 2),
    "kl_divergence_with_log_targets": (fg.nn.kl_divergence_with_log_targets,
                                       (np.log(P[::-1]), np.log(P)), (), 2),
    "generalized_kl_divergence": (fg.nn.generalized_kl_divergence, (X, P + 0.1), (), 2),
    "convex_kl_divergence": (fg.nn.convex_kl_divergence, (X, P + 0.1), (), 2),
    "safe_softmax_cross_entropy": (fg.nn.safe_softmax_cross_entropy, (X, P), (), 2),
    "poly_loss_cross_entropy": (lambda l, y: fg.nn.poly_loss_cross_entropy(l, y, where=MASK_5),
                                (X, P), (), 2),
    "multiclass_hinge_loss": (fg.nn.multiclass_hinge_loss, (X,), (LABELS,), 1),
    "perceptron_loss": (fg.nn.perceptron_loss, (X,), (2 * Y - 1,), 1),
    "multiclass_perceptron_loss": (fg.nn.multiclass_perceptron_loss, (X,), (LABELS,), 1),
    "triplet_margin_loss": (lambda a, p, n: fg.nn.triplet_margin_loss(a, p, n, margin=3.0),
                            (X, P, X[::-1]), (), 2),
    "ntxent": (fg.nn.ntxent, (X,), (np.array([0, 1, 0, 1]),), 2),
    "sparsemax_loss": (fg.nn.sparsemax_loss, (np.where(np.abs(np.abs(X) - 1) < 0.1, 0.5, X),),
                       (Y,), 1),
    "multiclass_sparsemax_loss": (fg.nn.multiclass_sparsemax_loss, (X,), (LABELS,), 1),
    "dice_loss": (lambda p, t: fg.nn.dice_loss(p, t, alpha=0.3, beta=0.7), (S4, T4), (), 2),
    "binary_dice_loss": (fg.nn.binary_dice_loss, (X, Y), (), 2),
    "multiclass_generalized_dice_loss": (fg.nn.multiclass_generalized_dice_loss, (S4,), (T4,),
                                         2),
    "ranking_softmax_loss": (lambda l, y: fg.nn.ranking_softmax_loss(l, y, where=MASK_5),
                             (X, R.uniform(size=(4, 5))), (), 2),
}


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_check_grads(name):
    f, diff, fixed, order = SMOOTH[name]
    fg.test_util.check_grads(lambda *a: f(*a, *fixed), diff, order=order)


def test_every_new_loss_is_tested():
    new = losses.__all__[losses.__all__.index("sigmoid_focal_loss"):]
    assert len(new) == 19 and set(new) <= set(SMOOTH)
    assert {n for n in OPTAX if n in new} == set(new)


@pytest.mark.parametrize("name", sorted(SMOOTH))
def test_float32_stays_float32(name):
    f, diff, fixed, _ = SMOOTH[name]
    args = [a.astype(np.float32) if a.dtype == np.float64 else a for a in diff + fixed]
    out = f(*args)
    assert out.dtype == np.float32, out.dtype
    np.testing.assert_allclose(out, f(*diff, *fixed), rtol=1e-4, atol=1e-5)
    g = fg.grad(lambda v: fnp.sum(f(v, *args[1:])))(args[0])
    assert g.dtype == np.float32
    assert fg.jit(f)(*args).dtype == np.float32


# (ntxent and multiclass_generalized_dice_loss give one value per batch, so they are not here;
# dice_loss's default axis depends on the number of dims, so it gets negative axes)
PER_EXAMPLE = {
    "sigmoid_focal_loss": (fg.nn.sigmoid_focal_loss, (X, Y)),
    "log_cosh": (fg.nn.log_cosh, (X, P)),
    "smooth_labels": (lambda y: fg.nn.smooth_labels(y, 0.2), (P,)),
    "kl_divergence_with_log_targets": (fg.nn.kl_divergence_with_log_targets,
                                       (np.log(P[::-1]), np.log(P))),
    "generalized_kl_divergence": (fg.nn.generalized_kl_divergence, (X, P)),
    "convex_kl_divergence": (fg.nn.convex_kl_divergence, (X, P)),
    "safe_softmax_cross_entropy": (fg.nn.safe_softmax_cross_entropy, (X, P)),
    "poly_loss_cross_entropy": (fg.nn.poly_loss_cross_entropy, (X, P)),
    "multiclass_hinge_loss": (fg.nn.multiclass_hinge_loss, (X, LABELS)),
    "perceptron_loss": (fg.nn.perceptron_loss, (X, 2 * Y - 1)),
    "multiclass_perceptron_loss": (fg.nn.multiclass_perceptron_loss, (X, LABELS)),
    "triplet_margin_loss": (fg.nn.triplet_margin_loss, (X, P, X[::-1])),
    "sparsemax_loss": (fg.nn.sparsemax_loss, (X, Y)),
    "multiclass_sparsemax_loss": (fg.nn.multiclass_sparsemax_loss, (X, LABELS)),
    "dice_loss": (lambda p, t: fg.nn.dice_loss(p, t, axis=(-3, -2)), (S4, T4)),
    "binary_dice_loss": (lambda p, t: fg.nn.binary_dice_loss(p, t), (S4[..., 0], T4[..., 0])),
    "ranking_softmax_loss": (lambda l, y: fg.nn.ranking_softmax_loss(l, y, reduce_fn=None),
                             (X, P)),
}


@pytest.mark.parametrize("name", sorted(PER_EXAMPLE))
def test_vmap_per_example_matches_a_loop(name):
    f, args = PER_EXAMPLE[name]
    n = args[0].shape[0]
    if name == "binary_dice_loss":  # (one example alone: add its batch axis of 1)
        loop = np.concatenate([f(*[a[i:i + 1] for a in args]) for i in range(n)])
        vm = fg.vmap(lambda *a: f(*[v[None] for v in a])[0])(*args)
    else:
        loop = np.stack([f(*[a[i] for a in args]) for i in range(n)])
        vm = fg.vmap(f)(*args)
    np.testing.assert_allclose(vm, loop, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(vm, f(*args), rtol=1e-13, atol=1e-14)


def test_batch_losses_under_vmap_over_batches():
    emb = R.standard_normal((3, 6, 4))
    groups = np.array([0, 1, 0, 2, 1, 2])
    loop = np.stack([fg.nn.ntxent(e, groups) for e in emb])
    np.testing.assert_allclose(fg.vmap(fg.nn.ntxent, in_axes=(0, None))(emb, groups), loop,
                               rtol=1e-13)
    s = np.stack([S4, S4[::-1] * 2])
    loop = np.stack([fg.nn.multiclass_generalized_dice_loss(v, T4) for v in s])
    np.testing.assert_allclose(
        fg.vmap(fg.nn.multiclass_generalized_dice_loss, in_axes=(0, None))(s, T4), loop,
        rtol=1e-13)


BIG = np.array([[1e4, -1e4, 0.0, 50.0], [-1e4, 1e4, 3.0, -1e4]])
BIG_Y = np.array([[1.0, 0.0, 1.0, 0.0], [1.0, 0.0, 0.0, 1.0]])
STABLE = {
    "sigmoid_focal_loss": lambda l: fg.nn.sigmoid_focal_loss(l, BIG_Y, alpha=0.3),
    "sigmoid_focal_loss_gamma_half": lambda l: fg.nn.sigmoid_focal_loss(l, BIG_Y, gamma=0.5),
    "log_cosh": fg.nn.log_cosh,
    "safe_softmax_cross_entropy": lambda l: fg.nn.safe_softmax_cross_entropy(l, BIG_Y / 2),
    "poly_loss_cross_entropy": lambda l: fg.nn.poly_loss_cross_entropy(l, BIG_Y / 2),
    "multiclass_hinge_loss": lambda l: fg.nn.multiclass_hinge_loss(l, np.array([1, 2])),
    "multiclass_perceptron_loss": lambda l: fg.nn.multiclass_perceptron_loss(l,
                                                                             np.array([1, 2])),
    "sparsemax_loss": lambda l: fg.nn.sparsemax_loss(l, BIG_Y),
    "multiclass_sparsemax_loss": lambda l: fg.nn.multiclass_sparsemax_loss(l, np.array([1, 2])),
    "dice_loss": lambda l: fg.nn.dice_loss(l[None], BIG_Y[None] / 2 + 0.25),
    "binary_dice_loss": lambda l: fg.nn.binary_dice_loss(l, BIG_Y),
    "ranking_softmax_loss": lambda l: fg.nn.ranking_softmax_loss(l, BIG_Y),
    "ntxent": lambda e: fg.nn.ntxent(e, np.array([0, 0])),
    "triplet_margin_loss": lambda a: fg.nn.triplet_margin_loss(a, a[::-1], a * 0.5),
}


@pytest.mark.parametrize("name", sorted(STABLE))
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_finite_at_logits_of_1e4(name, dtype):
    f, x = STABLE[name], BIG.astype(dtype)
    if name in ("ntxent", "triplet_margin_loss"):  # (squares of 1e4 overflow float32 anyway)
        x = x * (1e-2 if dtype == np.float32 else 1.0)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = f(x)
        g = fg.grad(lambda v: fnp.sum(f(v)))(x)
    assert np.all(np.isfinite(out)) and np.all(np.isfinite(g)), (out, g)
    assert g.dtype == dtype


def test_eager_bfloat16_keeps_its_dtype_as_under_jit():
    import ml_dtypes
    b = np.array([[1.5, -2.0, 0.3], [0.1, 0.2, -0.7]], ml_dtypes.bfloat16)
    y = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], ml_dtypes.bfloat16)
    calls = {"sigmoid_focal_loss": (b, y), "log_cosh": (b, y), "smooth_labels": (y, 0.1),
             "kl_divergence_with_log_targets": (b, b[::-1]),
             "generalized_kl_divergence": (b, y), "convex_kl_divergence": (b, y),
             "safe_softmax_cross_entropy": (b, y), "poly_loss_cross_entropy": (b, y),
             "multiclass_hinge_loss": (b, np.array([0, 2])), "perceptron_loss": (b, y),
             "multiclass_perceptron_loss": (b, np.array([0, 2])),
             "triplet_margin_loss": (b, y, b[::-1]), "ntxent": (b, np.array([0, 0])),
             "sparsemax_loss": (b, y), "multiclass_sparsemax_loss": (b, np.array([0, 2])),
             "dice_loss": (b, y), "binary_dice_loss": (b, y),
             "multiclass_generalized_dice_loss": (b, y), "ranking_softmax_loss": (b, y)}
    for name, args in calls.items():
        f = getattr(fg.nn, name)
        eager = f(*args)
        jitted = fg.jit(f)(*args) if name != "smooth_labels" else fg.jit(
            lambda v: f(v, 0.1))(y)
        assert eager.dtype == jitted.dtype == ml_dtypes.bfloat16, name
        np.testing.assert_allclose(eager.astype(np.float32), jitted.astype(np.float32),
                                   rtol=2e-2, atol=2e-2, err_msg=name)


# ----------------------------------------------------------------------------- conventions
def test_log_targets_of_minus_inf_contribute_zero():
    # (optax's formula gives nan there: exp(-inf) * (-inf - p))
    lp = np.log(np.array([0.5, 0.25, 0.25]))
    lt = np.array([0.0, -np.inf, -np.inf])
    assert fg.nn.kl_divergence_with_log_targets(lp, lt) == np.log(2.0)
    g = fg.grad(lambda v: fg.nn.kl_divergence_with_log_targets(lp, v))(lt)
    assert np.all(np.isfinite(g))
    np.testing.assert_allclose(fg.grad(lambda v: fg.nn.kl_divergence_with_log_targets(v, lt))(lp),
                               [-1.0, 0.0, 0.0])


def test_poly_loss_label_gradient_is_finite_where_masked():
    # (optax's is nan at masked classes: the cross entropy's 0 * -inf)
    g = fg.grad(lambda y: fnp.sum(fg.nn.poly_loss_cross_entropy(X, y, where=MASK_5)))(P)
    assert np.all(np.isfinite(g)) and np.all(g[~MASK_5] == 0)


def test_multiclass_sparsemax_gradient_is_sparsemax_minus_one_hot():
    probs = losses._sparsemax(X)
    np.testing.assert_allclose(probs.sum(-1), 1.0, rtol=1e-14)
    assert np.all(probs >= 0) and np.any(probs == 0)
    g = fg.grad(lambda s: fnp.sum(fg.nn.multiclass_sparsemax_loss(s, LABELS)))(X)
    np.testing.assert_allclose(g, probs - np.eye(5)[LABELS], atol=1e-14)
    # a loss of 0 exactly where sparsemax puts all its mass on the label
    assert fg.nn.multiclass_sparsemax_loss(np.array([[5.0, 0.0, 1.0]]), np.array([0]))[0] == 0


def test_smooth_labels_sum_to_one():
    out = fg.nn.smooth_labels(P, 0.3)
    np.testing.assert_allclose(out.sum(-1), 1.0, rtol=1e-14)
    np.testing.assert_allclose(fg.nn.smooth_labels(P, 0.3, axis=(0, 1)).sum(), 4.0 * 0.7 + 0.3)


def test_errors():
    with pytest.raises(TypeError, match="integer class"):
        fg.nn.multiclass_hinge_loss(X, LABELS.astype(float))
    with pytest.raises(ValueError, match="same shape"):
        fg.nn.perceptron_loss(X, Y[:, :2])
    with pytest.raises(ValueError, match="leading dimension"):
        fg.nn.ntxent(X, np.array([0, 1]))
    with pytest.raises(ValueError, match="sum to 1"):
        fg.nn.dice_loss(S4, T4, apply_softmax=False)
    with pytest.raises(ValueError, match="reduction"):
        fg.nn.dice_loss(S4, T4, reduction="max")
    # probabilities pass (and with the check skipped under jit)
    probs = fg.nn.softmax(S4)
    np.testing.assert_allclose(fg.nn.dice_loss(probs, T4, apply_softmax=False),
                               fg.nn.dice_loss(S4, T4), rtol=1e-14)
    np.testing.assert_allclose(fg.jit(lambda p: fg.nn.dice_loss(p, T4, apply_softmax=False))(
        probs), fg.nn.dice_loss(S4, T4), rtol=1e-14)


def test_ranking_softmax_loss_reductions_and_empty_lists():
    m = MASK_5.copy()
    m[2] = False
    none = fg.nn.ranking_softmax_loss(X, P, where=m, reduce_fn=None)
    assert none[2] == 0 and np.all(np.isfinite(none))
    np.testing.assert_allclose(fg.nn.ranking_softmax_loss(X, P, where=m),
                               none[[0, 1, 3]].mean(), rtol=1e-14)
    np.testing.assert_allclose(fg.nn.ranking_softmax_loss(X, P, where=m, reduce_fn=fnp.sum),
                               none.sum(), rtol=1e-14)
    assert fg.nn.ranking_softmax_loss(X, P, where=np.zeros((4, 5), bool)) == 0
    g = fg.grad(lambda l: fg.nn.ranking_softmax_loss(l, P, where=m))(X)
    assert np.all(np.isfinite(g)) and np.all(g[2] == 0)
